// Request-reply latency of a trivial remote tool served by the a2a tool service against a bare
// NATS request-reply of the same payload sizes on the same private nats-server, and served-call
// throughput at the default cap (2 slots) with 16 concurrent callers. Prints one JSON line.
//
// `bare_nats` is the client's own `request` (the target's baseline). `bare_inbox` is the same bytes
// requested the way the fisk transport requests (a publish with a reply subject under one inbox
// subscription), so `engine_ratio` is what the a2a engine itself adds on top of the wire.
// `codec_prepare_ms` is the time to make every schema check ready, as a server does at start.
//
// The kinds of call are measured in interleaved rounds (the order rotates every round), so
// a burst of load from elsewhere on the machine lands on all of them alike. Each round gives each
// kind its median wall time per call and its CPU time per call (both sides run in this process,
// so CPU covers client and server); the ratios are taken per round and reported as median and
// spread over the rounds. Environment: A2A_BENCH_ROUNDS, A2A_BENCH_CALLS (per kind per round).
import { Svcm } from '@nats-io/services';
import { connect } from '@nats-io/transport-node';
import { createInbox } from '@nats-io/transport-node';
import {
  A2aClient,
  buildAgentCard,
  createTransport,
  encode,
  prepareCodec,
  selectExposed,
  stampReply,
  stampRequest,
  startToolService,
} from '../../dist/a2a/index.js';
import { startNatsServer } from '../../dist/agenttest/index.js';
import { newFuncTool } from '../../dist/toolkit/functool/index.js';

const ROUNDS = Number(process.env.A2A_BENCH_ROUNDS ?? 21);
const CALLS = Number(process.env.A2A_BENCH_CALLS ?? 300);
const WARMUP = 500;
const THROUGHPUT_CALLS = 4000;
const CONCURRENCY = 16;
const TARGET = 1.3;

const ping = newFuncTool({
  name: 'ping',
  description: 'Answers pong',
  inputSchema: { type: 'object', properties: { n: { type: 'integer' } } },
  exposure: { mcp: false, a2a: true },
  handler: () => Promise.resolve({ status: 'completed', output: 'pong', isError: false }),
});

const round2 = (x) => Math.round(x * 100) / 100;

/** Median and spread of a list: min, quartiles, max. */
function spread(values, scale = (x) => x) {
  const s = [...values].sort((a, b) => a - b);
  const at = (q) => scale(s[Math.min(s.length - 1, Math.floor(q * (s.length - 1) + 0.5))]);
  return { median: at(0.5), min: at(0), p25: at(0.25), p75: at(0.75), max: at(1) };
}

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** One block of calls: the median wall time of a call and the CPU time per call, in µs. */
async function block(call) {
  const samples = new Array(CALLS);
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < CALLS; i++) {
    const t = performance.now();
    await call();
    samples[i] = (performance.now() - t) * 1000;
  }
  const cpu = process.cpuUsage(cpu0);
  return { wall: median(samples), cpu: (cpu.user + cpu.system) / CALLS, samples };
}

const server = await startNatsServer();
const serving = await connect({ servers: server.url });
const calling = await connect({ servers: server.url });
try {
  const prepared = performance.now();
  prepareCodec();
  const codecPrepareMs = Math.round((performance.now() - prepared) * 10) / 10;
  const tools = selectExposed([ping]).exposed;
  const service = await startToolService(
    { connection: serving },
    { identity: 'bench', card: buildAgentCard({ name: 'bench', version: '1', tools }), tools },
  );
  const client = new A2aClient(createTransport('nats', { connection: calling }), 'caller');

  // the bare comparison carries the same bytes both ways: an encoded tool request and its reply
  const request = encode(
    stampRequest(
      'io.choria.fisk-ai.v1.tool.request',
      { name: 'ping', input: { n: 1 } },
      { sender: { name: 'caller' }, recipient: { name: 'bench' } },
    ),
  );
  const reply = encode(
    stampReply(
      'io.choria.fisk-ai.v1.tool.reply',
      { output: 'pong' },
      stampRequest('io.choria.fisk-ai.v1.tool.request', { name: 'ping' }, { sender: { name: 'caller' } }),
      { self: { name: 'bench' } },
    ),
  );
  const bare = serving.subscribe('bench.bare', { queue: 'bench', callback: (_e, m) => m.respond(reply) });
  // the micro framework alone, answering the same bytes, to separate its cost from the engine's
  const micro = await new Svcm(serving).add({ name: 'bare-micro', version: '0.0.0', queue: 'bare-micro' });
  micro.addEndpoint('bare', { subject: 'bench.micro', handler: (_e, m) => m.respond(reply) });
  // one inbox subscription for every bare_inbox request, each matched by its token
  const inbox = `${createInbox()}.`;
  const waiting = new Map();
  let seq = 0;
  const inboxSub = calling.subscribe(`${inbox}*`, {
    callback: (_e, m) => {
      const w = waiting.get(m.subject.slice(inbox.length));
      if (w === undefined) return;
      waiting.delete(m.subject.slice(inbox.length));
      clearTimeout(w.timer);
      w.resolve(m);
    },
  });
  const inboxRequest = (subject, data) =>
    new Promise((resolve, reject) => {
      const token = (++seq).toString(36);
      waiting.set(token, { resolve, timer: setTimeout(() => waiting.delete(token) && reject(new Error('timeout')), 5000) });
      calling.publish(subject, data, { reply: `${inbox}${token}` });
    });
  await serving.flush();
  await calling.flush();

  const kinds = {
    fisk_tool: () => client.callTool('bench', 'ping', { n: 1 }),
    bare_nats: () => calling.request('bench.bare', request, { timeout: 5000 }),
    bare_micro_service: () => calling.request('bench.micro', request, { timeout: 5000 }),
    bare_inbox: () => inboxRequest('bench.bare', request),
  };
  for (const call of Object.values(kinds)) for (let i = 0; i < WARMUP; i++) await call();

  const rounds = [];
  const all = Object.fromEntries(Object.keys(kinds).map((k) => [k, []]));
  const names = Object.keys(kinds);
  for (let r = 0; r < ROUNDS; r++) {
    const order = names.map((_, i) => names[(i + r) % names.length]);
    const got = {};
    for (const k of order) {
      got[k] = await block(kinds[k]);
      for (const s of got[k].samples) all[k].push(s);
    }
    rounds.push(got);
  }
  const perKind = Object.fromEntries(
    names.map((k) => {
      const s = all[k].sort((a, b) => a - b);
      return [
        k,
        {
          wall_us: spread(
            rounds.map((r) => r[k].wall),
            Math.round,
          ),
          cpu_us: spread(
            rounds.map((r) => r[k].cpu),
            Math.round,
          ),
          p99_us: Math.round(s[Math.floor(0.99 * (s.length - 1))]),
        },
      ];
    }),
  );
  const wallRatio = spread(
    rounds.map((r) => r.fisk_tool.wall / r.bare_nats.wall),
    round2,
  );
  const cpuRatio = spread(
    rounds.map((r) => r.fisk_tool.cpu / r.bare_nats.cpu),
    round2,
  );
  const engineWallRatio = spread(
    rounds.map((r) => r.fisk_tool.wall / r.bare_inbox.wall),
    round2,
  );
  const engineCpuRatio = spread(
    rounds.map((r) => r.fisk_tool.cpu / r.bare_inbox.cpu),
    round2,
  );

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
  inboxSub.unsubscribe();
  await micro.stop();
  await service.stop();
  process.stdout.write(
    `${JSON.stringify({
      latency: {
        rounds: ROUNDS,
        calls_per_round: CALLS,
        request_bytes: request.byteLength,
        reply_bytes: reply.byteLength,
        ...perKind,
        wall_ratio: wallRatio,
        cpu_ratio: cpuRatio,
        target_ratio: TARGET,
        within_target: wallRatio.median <= TARGET,
        engine_wall_ratio: engineWallRatio,
        engine_cpu_ratio: engineCpuRatio,
      },
      codec_prepare_ms: codecPrepareMs,
      throughput: { calls: THROUGHPUT_CALLS, concurrency: CONCURRENCY, slots: 2, calls_per_second: Math.round(THROUGHPUT_CALLS / seconds) },
    })}\n`,
  );
} finally {
  await serving.close();
  await calling.close();
  await server.stop();
}
