// Jobs per second through the JetStream work queue, with a trivial model (a fake Anthropic server
// answering at once: one call asking for a tool, one final answer) and a trivial in-process tool,
// at 1, 2 and 4 workers sharing one queue, one session stream and one task bucket on a private
// nats-server. Each worker is a runtime, a jobs channel and a server of its own, on its own NATS
// connection, in this process. Beside it, the same jobs run directly (startRun, journaled on the
// same stream), to show what the queue adds per job: the task record, the pull, the acks.
//
// Then `vs_bare_fsync`: jobs of one model call each (the fake model answers at once, no tool)
// through fisk serve's jobs channel with the file task store and file sessions, at 1 and 2
// workers, against a bare JetStream pull worker doing the same model call and writing its result
// file, fsyncing the file and its directory before it acknowledges the message (the same
// durability: the result is on disk before the ack). Rounds interleave the two (FISK_BENCH_JOBS_ROUNDS,
// default 7, of BENCH_FSYNC_JOBS jobs, default 30); the ratio of wall time per job is taken per
// round and reported as median and spread, and so is the ratio of CPU time per job (`cpu_ratio`,
// this process's user and system time over the round: both sides share it with the fake model
// server, and neither counts nats-server's). `leftover_files_per_job` counts what the file stores
// leave beside their records (a lock file, a temporary file) per finished job, and `make_file_us`
// what making an empty file cost in each side's directory after its round. Prints one JSON line.
// BENCH_JOBS_FISK_FILE_ROUND=1 or BENCH_JOBS_BARE_ROUND=1 runs one round of that side alone (with
// BENCH_JOBS_ROUND_WORKERS workers, default 1), to trace or profile it.
import { closeSync, fsyncSync, mkdirSync, mkdtempSync, openSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { open as openFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AckPolicy, DiscardPolicy, RetentionPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connect } from '@nats-io/transport-node';
import { anthropicText, anthropicToolUse, startFakeModelServer, startNatsServer } from '../../dist/agenttest/index.js';
import { stats } from '../lib/process-time.mjs';
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
  await jsm.streams.add({
    name: `RUNS${r}`,
    subjects: [`fisk.sessions${r}.>`],
    max_msgs_per_subject: 1,
    discard: DiscardPolicy.New,
    discard_new_per_subject: true,
  });
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

const open = (config) =>
  openRuntime(config, 'run', { env, providerOptions: { baseUrl: fake.url, apiKey: 'k' }, sessions: {}, customTools: [ping] });

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
  await Promise.all(
    Array.from({ length: JOBS_PER_ROUND }, (_, i) => js.publish(`fisk.jobs.${r}`, JSON.stringify({ id: `j${i}`, prompt: `job ${i}` }))),
  );
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
  return {
    workers,
    jobs: JOBS_PER_ROUND,
    seconds: Number(seconds.toFixed(3)),
    jobs_per_second: Number((JOBS_PER_ROUND / seconds).toFixed(2)),
    ms_per_job: Number(((seconds * 1000) / JOBS_PER_ROUND).toFixed(2)),
  };
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

const FSYNC_JOBS = Number(process.env.BENCH_FSYNC_JOBS ?? 30);
const FSYNC_ROUNDS = Number(process.env.FISK_BENCH_JOBS_ROUNDS ?? 7);
const answerAtOnce = () => anthropicText('done');
const fakeOne = await startFakeModelServer({ fallback: answerAtOnce, record: false, keepAliveTimeoutMs: 10_000 });

/** A fresh work queue and its consumer for one round; returns its subject. */
async function freshQueue(tag) {
  const r = round++;
  await jsm.streams.add({ name: `JOBS${tag}${r}`, subjects: [`fisk.jobs.${tag}${r}`], retention: RetentionPolicy.Workqueue });
  await jsm.consumers.add(`JOBS${tag}${r}`, { durable_name: 'workers', ack_policy: AckPolicy.Explicit, ack_wait: 30_000_000_000 });
  return { stream: `JOBS${tag}${r}`, subject: `fisk.jobs.${tag}${r}`, r };
}

/** Every regular file under `dir`, recursively. */
function filesUnder(dir) {
  const out = [];
  const walk = (d) => {
    let names;
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const n of names) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(p);
    }
  };
  walk(dir);
  return out;
}

/**
 * What making an empty file costs in `dir` (a round's task directory, or the bare worker's), in
 * microseconds of CPU a file: a job through fisk names three new files (its task record, result
 * and journal) where the bare worker names one, and on some disks making a file costs far more in
 * one directory than in another, so the ratio of a round rises with what its directories cost.
 */
function makeFileUs(dir) {
  const n = 100;
  const c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) closeSync(openSync(join(dir, `.cost-${i}`), 'wx', 0o600));
  const made = process.cpuUsage(c0);
  for (let i = 0; i < n; i++) rmSync(join(dir, `.cost-${i}`));
  return (made.user + made.system) / n;
}

/** CPU milliseconds (user and system) of a `process.cpuUsage` difference. */
const cpuMs = (usage) => (usage.user + usage.system) / 1000;

/** fisk serve's jobs channel, file task store and file sessions: ms per job, and files beyond the records. */
async function fiskFileRound(workers) {
  const q = await freshQueue('F');
  const state = join(home, `fisk-state-${q.r}`);
  const text = [
    'identity: bench',
    'nats_context: bench',
    'system_prompt: You answer.',
    'llm: {model: claude-sonnet-4-6, no_tool_search: true}',
    `harness: {sessions: {backend: file, options: {directory: ${join(state, 'runs')}}}}`,
    `expose: {agent: {jobs: {stream: ${q.stream}, consumer: workers}}}`,
    `tasks: {backend: file, options: {directory: ${join(state, 'tasks')}}}`,
    '',
  ].join('\n');
  const config = parseConfigForMode({ text }, 'run');
  let ended = 0;
  let allEnded;
  const finished = new Promise((res) => (allEnded = res));
  const notify = (n) => {
    if (n.kind === 'ended' && n.result.kind === 'ran' && n.result.outcome.status === 'completed' && ++ended === FSYNC_JOBS) allEnded();
  };
  const started = [];
  for (let i = 0; i < workers; i++) {
    const runtime = await openRuntime(config, 'run', { env, providerOptions: { baseUrl: fakeOne.url, apiKey: 'k' }, sessions: {} });
    const { channel } = await openConfiguredJobs(runtime, { cwd: home });
    started.push({ runtime, server: startServer(runtime, { channels: [channel], notify }) });
  }
  const js = jetstream(nc);
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  await Promise.all(
    Array.from({ length: FSYNC_JOBS }, (_, i) => js.publish(q.subject, JSON.stringify({ id: `f${q.r}-${i}`, prompt: `job ${i}` }))),
  );
  await finished;
  const msPerJob = (performance.now() - t0) / FSYNC_JOBS;
  const cpuMsPerJob = cpuMs(process.cpuUsage(cpu0)) / FSYNC_JOBS;
  for (const s of started) {
    await s.server.drain();
    await s.runtime.close();
  }
  const files = filesUnder(state);
  const makeUs = makeFileUs(join(state, 'tasks'));
  // a task's records (`<id>.json`, `<id>.result.json`) and a run's journal (`runs/<id>.json`)
  const records = files.filter((f) => /\/(tasks|runs)\/[^/.][^/]*\.json$/.test(f));
  const results = files.filter((f) => f.endsWith('.result.json')).length;
  if (results !== FSYNC_JOBS) throw new Error(`${results} of ${FSYNC_JOBS} results were stored`);
  return {
    msPerJob,
    cpuMsPerJob,
    makeUs,
    leftover: (files.length - records.length) / FSYNC_JOBS,
    leftoverNames: files
      .filter((f) => !records.includes(f))
      .slice(0, 3)
      .map((f) => f.slice(state.length)),
  };
}

/** The floor: pull, the same model call, write the result, fsync it and its directory, ack. */
async function bareRound(workers) {
  const q = await freshQueue('B');
  const dir = join(home, `bare-${q.r}`);
  mkdirSync(dir);
  const js = jetstream(nc);
  const consumer = await js.consumers.get(q.stream, 'workers');
  let done = 0;
  let allDone;
  const finished = new Promise((res) => (allDone = res));
  const stop = [];
  const body = JSON.stringify({
    model: 'claude-sonnet-4-6',
    max_tokens: 1024,
    system: 'You answer.',
    messages: [{ role: 'user', content: 'job' }],
  });
  for (let w = 0; w < workers; w++) {
    const messages = await consumer.consume({ max_messages: 1 });
    stop.push(messages);
    void (async () => {
      for await (const m of messages) {
        const job = m.json();
        const res = await fetch(`${fakeOne.url}/v1/messages`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
          body: body.replace('"job"', JSON.stringify(job.prompt)),
        });
        const answer = await res.json();
        const fh = await openFile(join(dir, `${job.id}.json`), 'wx', 0o600);
        await fh.writeFile(JSON.stringify({ id: job.id, state: 'completed', answer }));
        await fh.sync();
        await fh.close();
        const d = openSync(dir, 'r');
        fsyncSync(d);
        closeSync(d);
        await m.ackAck();
        if (++done === FSYNC_JOBS) allDone();
      }
    })();
  }
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  await Promise.all(
    Array.from({ length: FSYNC_JOBS }, (_, i) => js.publish(q.subject, JSON.stringify({ id: `b${q.r}-${i}`, prompt: `job ${i}` }))),
  );
  await finished;
  const msPerJob = (performance.now() - t0) / FSYNC_JOBS;
  const cpuMsPerJob = cpuMs(process.cpuUsage(cpu0)) / FSYNC_JOBS;
  for (const m of stop) await m.close();
  return { msPerJob, cpuMsPerJob, makeUs: makeFileUs(dir) };
}

/** Interleaved rounds of fisk and the bare worker at each worker count. */
async function versusBare() {
  const out = {};
  let leftover = 0;
  let leftoverNames = [];
  for (const workers of [1, 2]) {
    await fiskFileRound(workers); // warm-up, unmeasured
    await bareRound(workers);
    const fisk = [];
    const bare = [];
    const ratio = [];
    const cpuRatio = [];
    const fiskCpu = [];
    const bareCpu = [];
    const fiskMake = [];
    const bareMake = [];
    for (let i = 0; i < FSYNC_ROUNDS; i++) {
      const order = i % 2 === 0 ? ['fisk', 'bare'] : ['bare', 'fisk'];
      const got = {};
      for (const side of order) got[side] = side === 'fisk' ? await fiskFileRound(workers) : await bareRound(workers);
      fisk.push(got.fisk.msPerJob);
      bare.push(got.bare.msPerJob);
      ratio.push(got.fisk.msPerJob / got.bare.msPerJob);
      fiskCpu.push(got.fisk.cpuMsPerJob);
      bareCpu.push(got.bare.cpuMsPerJob);
      cpuRatio.push(got.fisk.cpuMsPerJob / got.bare.cpuMsPerJob);
      fiskMake.push(got.fisk.makeUs);
      bareMake.push(got.bare.makeUs);
      leftover = Math.max(leftover, got.fisk.leftover);
      if (got.fisk.leftoverNames.length > 0) leftoverNames = got.fisk.leftoverNames;
    }
    const s2 = (xs) => {
      const st = stats(xs.map((x) => x * 100));
      return { median: st.median / 100, p10: st.p10 / 100, p90: st.p90 / 100 };
    };
    out[`workers_${workers}`] = {
      jobs_per_round: FSYNC_JOBS,
      rounds: FSYNC_ROUNDS,
      fisk_ms_per_job: s2(fisk),
      bare_ms_per_job: s2(bare),
      ratio: s2(ratio),
      fisk_cpu_ms_per_job: s2(fiskCpu),
      bare_cpu_ms_per_job: s2(bareCpu),
      cpu_ratio: s2(cpuRatio),
      make_file_us: { fisk_tasks_dir: stats(fiskMake), bare_dir: stats(bareMake) },
    };
  }
  return { ...out, leftover_files_per_job: leftover, leftover_examples: leftoverNames };
}

/** BENCH_JOBS_ROUND_WORKERS for a single round: a whole number of workers, 1 when unset. */
function roundWorkers() {
  const text = process.env.BENCH_JOBS_ROUND_WORKERS ?? '1';
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`BENCH_JOBS_ROUND_WORKERS must be a whole number of workers from 1, not ${JSON.stringify(text)}`);
  return n;
}

/** The whole benchmark, or one part of it that an environment variable asks for. */
async function main() {
  if (process.env.BENCH_JOBS_FISK_FILE_ROUND === '1') {
    // one round of fisk's side alone, for tracing its system calls (strace -f -c)
    const one = await fiskFileRound(roundWorkers());
    return {
      fisk_file_round: {
        jobs: FSYNC_JOBS,
        ms_per_job: one.msPerJob,
        cpu_ms_per_job: one.cpuMsPerJob,
        leftover_files_per_job: one.leftover,
      },
    };
  }
  if (process.env.BENCH_JOBS_BARE_ROUND === '1') {
    // one round of the bare worker alone, to profile beside fisk's
    const one = await bareRound(roundWorkers());
    return { bare_round: { jobs: FSYNC_JOBS, ms_per_job: one.msPerJob, cpu_ms_per_job: one.cpuMsPerJob } };
  }
  if (process.env.BENCH_JOBS_ONLY_FSYNC === '1') {
    const v = await versusBare();
    return { vs_bare_fsync: v, leftover_files_per_job: v.leftover_files_per_job };
  }
  // a warm-up round so the first measured one does not pay for loading and JIT
  await directRound();
  const direct = await directRound();
  const queue = [];
  for (const w of WORKER_COUNTS) queue.push(await queueRound(w));
  const one = queue[0];
  const fsync = await versusBare();
  return {
    model: 'fake, answers at once (2 calls per job)',
    tool: 'in-process ping',
    stores: 'jetstream sessions, jetstream task bucket',
    direct_journaled: direct,
    queue,
    overhead_ms_per_job_at_1_worker: Number((one.ms_per_job - direct.ms_per_job).toFixed(2)),
    vs_bare_fsync: fsync,
    leftover_files_per_job: fsync.leftover_files_per_job,
  };
}

try {
  process.stdout.write(`${JSON.stringify(await main())}\n`);
} finally {
  // the private nats-server is a child process: it is stopped on every path, or it outlives the bench
  await nc.close();
  await fake.close();
  await fakeOne.close();
  await nats.stop();
  rmSync(home, { recursive: true, force: true });
}
