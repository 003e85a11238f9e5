import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** A temporary directory removed by `cleanup`. */
export interface TempDir {
  readonly path: string;
  write(rel: string, content: string | Buffer): string;
  cleanup(): void;
}

export function tempDir(prefix = 'fisk-knowledge-'): TempDir {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return {
    path,
    write(rel, content) {
      const p = join(path, rel);
      mkdirSync(dirname(p), { recursive: true });
      writeFileSync(p, content);
      return p;
    },
    cleanup() {
      rmSync(path, { recursive: true, force: true });
    },
  };
}

/** A deterministic toy embedding: a bag of hashed words, so related texts land near each other. */
export function toyEmbedding(text: string, dimension: number): number[] {
  const v = new Array<number>(dimension).fill(0);
  for (const w of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (w === '') continue;
    let h = 2166136261;
    for (let i = 0; i < w.length; i++) h = Math.imul(h ^ w.charCodeAt(i), 16777619);
    v[(h >>> 0) % dimension]! += 1;
  }
  v[0]! += 0.01;
  return v;
}

/** A scripted behaviour of the fake embeddings server for one request. */
export type FakeBehaviour = 'ok' | 'error_500' | 'error_in_200' | 'hang' | 'shuffle' | 'duplicate' | 'gap';

/** A local OpenAI-compatible `/embeddings` server. */
export interface FakeEmbeddings {
  readonly baseUrl: string;
  readonly requests: { input: string[]; model: string; auth: string | undefined }[];
  /** Decides each request's behaviour; default always `ok`. */
  behaviour: (input: readonly string[]) => FakeBehaviour;
  dimension: number;
  close(): Promise<void>;
}

export async function startFakeEmbeddings(dimension = 16): Promise<FakeEmbeddings> {
  const hanging: ServerResponse[] = [];
  const state: FakeEmbeddings = {
    baseUrl: '',
    requests: [],
    behaviour: () => 'ok',
    dimension,
    close: async () => {
      for (const r of hanging) r.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(parts).toString('utf8')) as { input: string[]; model: string };
      state.requests.push({ input: body.input, model: body.model, auth: req.headers.authorization });
      const b = state.behaviour(body.input);
      if (b === 'hang') {
        hanging.push(res);
        return;
      }
      if (b === 'error_500') {
        res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"message":"boom"}}');
        return;
      }
      if (b === 'error_in_200') {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"error":{"message":"model not loaded"}}');
        return;
      }
      let data = body.input.map((t, index) => ({ object: 'embedding', index, embedding: toyEmbedding(t, state.dimension) }));
      if (b === 'shuffle') data = data.reverse();
      if (b === 'duplicate' && data.length > 1) data[1] = { ...data[1]!, index: 0 };
      if (b === 'gap') data = data.slice(1);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data, model: body.model }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
  (state as { baseUrl: string }).baseUrl = `http://127.0.0.1:${port}/v1`;
  return state;
}

/** Overwrites `length` bytes of `path` at `offset` with `byte`: a damaged page, as a disk error or a crash leaves one. */
export function scribble(path: string, offset: number, length: number, byte: number): void {
  const fd = openSync(path, 'r+');
  try {
    writeSync(fd, Buffer.alloc(length, byte), 0, length, offset);
  } finally {
    closeSync(fd);
  }
}
