// Jobs per second through the JetStream work queue, with a trivial model (a fake Anthropic server
// answering at once: one call asking for a tool, one final answer) and a trivial in-process tool,
// at 1, 2 and 4 workers sharing one queue, one session stream and one task bucket on a private
// nats-server. Each worker is a runtime, a jobs channel and a server of its own, on its own NATS
// connection, in this process. Beside it, the same jobs run directly (startRun, journaled on the
// same stream), to show what the queue adds per job: the task record, the pull, the acks. Prints
// one JSON line.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AckPolicy, DiscardPolicy, RetentionPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connect } from '@nats-io/transport-node';
import { anthropicText, anthropicToolUse, startFakeModelServer, startNatsServer } from '../../dist/agenttest/index.js';
import { parseConfigForMode } from '../../dist/config/index.js';
import { openRuntime, startRun } from '../../dist/host/index.js';
import { openConfiguredJobs, startServer } from '../../dist/serve/index.js';
import { newFuncTool } from '../../dist/toolkit/functool/index.js';

const JOBS_PER_ROUND = Number(process.env.BENCH_JOBS ?? 60);
const WORKER_COUNTS = [1, 2, 4];

const ping = newFuncTool({
  name: 'ping',
  description: 'Answers pong',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  exposure: { mcp: false, a2a: false },
  handler: () => Promise.resolve({ status: 'completed', output: 'pong', isError: false }),
});

function model(req) {
  const messages = (req.body ?? JSON.parse(req.bodyText)).messages;
  const last = messages[messages.length - 1];
  const answered = Array.isArray(last?.content) && last.content.some((b) => b.type === 'tool_result');
  return answered ? anthropicText('done') : anthropicToolUse([{ id: `toolu_${messages.length}`, name: 'ping', input: {} }]);
}

const home = mkdtempSync(join(tmpdir(), 'fisk-bench-jobs-'));
const nats = await startNatsServer();
const fake = await startFakeModelServer({ fallback: model, record: false, keepAliveTimeoutMs: 10_000 });
const nc = await connect({ servers: nats.url });
const jsm = await jetstreamManager(nc);
mkdirSync(join(home, 'nats', 'context'), { recursive: true });
writeFileSync(join(home, 'nats', 'context', 'bench.json'), JSON.stringify({ url: nats.url }));
const env = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: home, XDG_STATE_HOME: join(home, 'state') };

let round = 0;
async function prepare() {
  const r = round++;
  await jsm.streams.add({ name: `JOBS${r}`, subjects: [`fisk.jobs.${r}`], retention: RetentionPolicy.Workqueue });
  await jsm.consumers.add(`JOBS${r}`, { durable_name: 'workers', ack_policy: AckPolicy.Explicit, ack_wait: 30_000_000_000 });
  await jsm.streams.add({ name: `RUNS${r}`, subjects: [`fisk.sessions${r}.>`], max_msgs_per_subject: 1, discard: DiscardPolicy.New, discard_new_per_subject: true });
  const kv = await new Kvm(nc).create(`TASKS${r}`, { history: 1 });
  const text = [
    'identity: bench',
    'nats_context: bench',
    'system_prompt: You answer.',
    'llm: {model: claude-sonnet-4-6, no_tool_search: true}',
    `harness: {sessions: {backend: jetstream, options: {stream: RUNS${r}}}}`,
    `expose: {agent: {jobs: {stream: JOBS${r}, consumer: workers}}}`,
    `tasks: {backend: jetstream, options: {bucket: TASKS${r}}}`,
    '',
  ].join('\n');
  return { r, kv, config: parseConfigForMode({ text }, 'run') };
}

const open = (config) => openRuntime(config, 'run', { env, providerOptions: { baseUrl: fake.url, apiKey: 'k' }, sessions: {}, customTools: [ping] });

async function queueRound(workers) {
  const { r, kv, config } = await prepare();
  const started = [];
  let ended = 0;
  let allEnded;
  const finished = new Promise((res) => (allEnded = res));
  const notify = (n) => {
    if (n.kind === 'ended' && n.result.kind === 'ran' && n.result.outcome.status === 'completed' && ++ended === JOBS_PER_ROUND) allEnded();
  };
  for (let i = 0; i < workers; i++) {
    const runtime = await open(config);
    const { channel } = await openConfiguredJobs(runtime, { cwd: home });
    started.push({ runtime, server: startServer(runtime, { channels: [channel], notify }) });
  }
  const js = jetstream(nc);
  const t0 = performance.now();
  await Promise.all(Array.from({ length: JOBS_PER_ROUND }, (_, i) => js.publish(`fisk.jobs.${r}`, JSON.stringify({ id: `j${i}`, prompt: `job ${i}` }))));
  // a run's end is reported after its result is stored and its message acknowledged
  await finished;
  const seconds = (performance.now() - t0) / 1000;
  let stored = 0;
  for await (const k of await kv.keys()) if ((await kv.get(k))?.json().state === 'completed') stored++;
  if (stored !== JOBS_PER_ROUND) throw new Error(`${stored} of ${JOBS_PER_ROUND} results were stored`);
  for (const s of started) {
    await s.server.drain();
    await s.runtime.close();
  }
  return { workers, jobs: JOBS_PER_ROUND, seconds: Number(seconds.toFixed(3)), jobs_per_second: Number((JOBS_PER_ROUND / seconds).toFixed(2)), ms_per_job: Number(((seconds * 1000) / JOBS_PER_ROUND).toFixed(2)) };
}

async function directRound() {
  const { config } = await prepare();
  const runtime = await open(config);
  const t0 = performance.now();
  for (let i = 0; i < JOBS_PER_ROUND; i++) {
    const h = await startRun(runtime, { prompt: `job ${i}`, checkpoint: {} });
    const outcome = await h.outcome;
    await h.close();
    if (outcome.status !== 'completed') throw new Error(`a direct run ended ${outcome.status}`);
  }
  const seconds = (performance.now() - t0) / 1000;
  await runtime.close();
  return { jobs: JOBS_PER_ROUND, seconds: Number(seconds.toFixed(3)), ms_per_job: Number(((seconds * 1000) / JOBS_PER_ROUND).toFixed(2)) };
}

try {
  // a warm-up round so the first measured one does not pay for loading and JIT
  await directRound();
  const direct = await directRound();
  const queue = [];
  for (const w of WORKER_COUNTS) queue.push(await queueRound(w));
  const one = queue[0];
  process.stdout.write(
    `${JSON.stringify({
      model: 'fake, answers at once (2 calls per job)',
      tool: 'in-process ping',
      stores: 'jetstream sessions, jetstream task bucket',
      direct_journaled: direct,
      queue,
      overhead_ms_per_job_at_1_worker: Number((one.ms_per_job - direct.ms_per_job).toFixed(2)),
    })}\n`,
  );
} finally {
  await nc.close();
  await fake.close();
  await nats.stop();
  rmSync(home, { recursive: true, force: true });
}
