// Request-reply latency of a trivial remote tool served by the a2a tool service against a bare
// NATS request-reply of the same payload sizes on the same private nats-server, and served-call
// throughput at the default cap (2 slots) with 16 concurrent callers. Prints one JSON line.
import { Svcm } from '@nats-io/services';
import { connect } from '@nats-io/transport-node';
import { A2aClient, buildAgentCard, createTransport, encode, selectExposed, stampReply, stampRequest, startToolService } from '../../dist/a2a/index.js';
import { startNatsServer } from '../../dist/agenttest/index.js';
import { newFuncTool } from '../../dist/toolkit/functool/index.js';

const LATENCY_CALLS = 2000;
const WARMUP = 200;
const THROUGHPUT_CALLS = 4000;
const CONCURRENCY = 16;

const ping = newFuncTool({
  name: 'ping',
  description: 'Answers pong',
  inputSchema: { type: 'object', properties: { n: { type: 'integer' } } },
  exposure: { mcp: false, a2a: true },
  handler: () => Promise.resolve({ status: 'completed', output: 'pong', isError: false }),
});

function stats(samples) {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return { median_us: Math.round(at(0.5) * 1000), p99_us: Math.round(at(0.99) * 1000), mean_us: Math.round((s.reduce((a, b) => a + b, 0) / s.length) * 1000) };
}

async function timeCalls(n, call) {
  for (let i = 0; i < WARMUP; i++) await call();
  const samples = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await call();
    samples.push(performance.now() - t);
  }
  return samples;
}

const server = await startNatsServer();
const serving = await connect({ servers: server.url });
const calling = await connect({ servers: server.url });
try {
  const tools = selectExposed([ping]).exposed;
  const service = await startToolService({ connection: serving }, { identity: 'bench', card: buildAgentCard({ name: 'bench', version: '1', tools }), tools });
  const client = new A2aClient(createTransport('nats', { connection: calling }), 'caller');

  // the bare comparison carries the same bytes both ways: an encoded tool request and its reply
  const request = encode(stampRequest('io.choria.fisk-ai.v1.tool.request', { name: 'ping', input: { n: 1 } }, { sender: { name: 'caller' }, recipient: { name: 'bench' } }));
  const reply = encode(stampReply('io.choria.fisk-ai.v1.tool.reply', { output: 'pong' }, stampRequest('io.choria.fisk-ai.v1.tool.request', { name: 'ping' }, { sender: { name: 'caller' } }), { self: { name: 'bench' } }));
  const bare = serving.subscribe('bench.bare', { queue: 'bench', callback: (_e, m) => m.respond(reply) });
  // the micro framework alone, answering the same bytes, to separate its cost from the engine's
  const micro = await new Svcm(serving).add({ name: 'bare-micro', version: '0.0.0', queue: 'bare-micro' });
  micro.addEndpoint('bare', { subject: 'bench.micro', handler: (_e, m) => m.respond(reply) });
  await serving.flush();

  const fisk = stats(await timeCalls(LATENCY_CALLS, () => client.callTool('bench', 'ping', { n: 1 })));
  const plain = stats(await timeCalls(LATENCY_CALLS, () => calling.request('bench.bare', request, { timeout: 5000 })));
  const microOnly = stats(await timeCalls(LATENCY_CALLS, () => calling.request('bench.micro', request, { timeout: 5000 })));

  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < THROUGHPUT_CALLS) {
        next++;
        await client.callTool('bench', 'ping', { n: 1 });
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;

  bare.unsubscribe();
  await micro.stop();
  await service.stop();
  const ratio = Math.round((fisk.median_us / plain.median_us) * 100) / 100;
  process.stdout.write(
    `${JSON.stringify({
      latency: { calls: LATENCY_CALLS, request_bytes: request.byteLength, reply_bytes: reply.byteLength, fisk_tool: fisk, bare_nats: plain, bare_micro_service: microOnly, median_ratio: ratio, target_ratio: 1.3, within_target: ratio <= 1.3 },
      throughput: { calls: THROUGHPUT_CALLS, concurrency: CONCURRENCY, slots: 2, calls_per_second: Math.round(THROUGHPUT_CALLS / seconds) },
    })}\n`,
  );
} finally {
  await serving.close();
  await calling.close();
  await server.stop();
}
