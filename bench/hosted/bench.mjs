// What the a2a exchange costs a run: one prompt (a tool call, then the answer, from the fake model
// server) run directly with startRun, as `fisk run` does, and the same prompt hosted behind the
// in-process a2a transport and driven with startHostedRun, the wire a remote client and a peer take.
// Rounds alternate between the two on one runtime, so a busy machine weighs on both alike; the
// figure is the ratio of their per-run times. Prints one JSON line.
import { parseConfigForMode } from '../../dist/config/index.js';
import { openRuntime, startRun } from '../../dist/host/index.js';
import { serveRunsInProcess, startHostedRun } from '../../dist/serve/index.js';
import { ping, startPingModel } from '../lib/ping-agent.mjs';

const ROUNDS = Number(process.env.BENCH_HOSTED_ROUNDS ?? 15);
const PER_ROUND = Number(process.env.BENCH_HOSTED_PER_ROUND ?? 10);

const model = await startPingModel();
const config = parseConfigForMode(
  { text: 'identity: bench\nsystem_prompt: You answer.\nllm:\n  model: claude-sonnet-4-6\n  no_tool_search: true\n' },
  'run',
);
const runtime = await openRuntime(config, 'run', {
  env: { PATH: process.env.PATH },
  providerOptions: { baseUrl: model.url, apiKey: 'k' },
  customTools: [ping],
});
const host = await serveRunsInProcess({ runtime, identity: 'bench' });

async function direct() {
  const handle = await startRun(runtime, { prompt: 'ping' });
  const outcome = await handle.outcome;
  await handle.close();
  if (outcome.status !== 'completed') throw new Error(`direct run ended ${outcome.status}`);
}
async function hosted() {
  const handle = await startHostedRun({
    transport: host.transport,
    self: host.agent,
    agent: host.agent,
    start: { prompt: 'ping', questions: 'none' },
  });
  const outcome = await handle.outcome;
  await handle.close();
  if (outcome.status !== 'completed') throw new Error(`hosted run ended ${outcome.status}`);
}
/** Mean wall and CPU milliseconds per run over one round. */
async function round(one) {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < PER_ROUND; i++) await one();
  const cpu = process.cpuUsage(cpu0);
  return { wall: (performance.now() - t0) / PER_ROUND, cpu: (cpu.user + cpu.system) / 1000 / PER_ROUND };
}
const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};
const series = (xs) => ({
  median: Math.round(quantile(xs, 0.5) * 1000) / 1000,
  p10: Math.round(quantile(xs, 0.1) * 1000) / 1000,
  p90: Math.round(quantile(xs, 0.9) * 1000) / 1000,
});

try {
  for (let i = 0; i < 3; i++) {
    await direct();
    await hosted();
  }
  const d = [];
  const h = [];
  for (let r = 0; r < ROUNDS; r++) {
    // alternate which goes first, so neither always follows the other's garbage
    if (r % 2 === 0) {
      d.push(await round(direct));
      h.push(await round(hosted));
    } else {
      h.push(await round(hosted));
      d.push(await round(direct));
    }
  }
  const ratio = (k) => series(h.map((x, i) => x[k] / d[i][k]));
  process.stdout.write(
    `${JSON.stringify({
      rounds: ROUNDS,
      runs_per_round: PER_ROUND,
      direct_ms: { wall: series(d.map((x) => x.wall)), cpu: series(d.map((x) => x.cpu)) },
      hosted_ms: { wall: series(h.map((x) => x.wall)), cpu: series(h.map((x) => x.cpu)) },
      hosted_vs_direct: { wall: ratio('wall'), cpu: ratio('cpu') },
    })}\n`,
  );
} finally {
  await host.close();
  await runtime.close();
  await model.close();
}
