// A deterministic toy embedder (hashed bag of words) served as an OpenAI-compatible embeddings
// endpoint on loopback, shared by the knowledge benchmarks.
import { createServer } from 'node:http';

export function toy(text, dim) {
  const v = new Array(dim).fill(0);
  for (const w of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (w === '') continue;
    let h = 2166136261;
    for (let i = 0; i < w.length; i++) h = Math.imul(h ^ w.charCodeAt(i), 16777619);
    v[(h >>> 0) % dim] += 1;
  }
  v[0] += 0.01;
  return v;
}

export async function fakeEmbeddings(dim) {
  const server = createServer((req, res) => {
    const parts = [];
    req.on('data', (c) => parts.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(parts).toString('utf8'));
      const data = body.input.map((t, index) => ({ object: 'embedding', index, embedding: toy(t, dim) }));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data }));
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}/v1`, close: () => new Promise((r) => server.close(r)) };
}
