// `fisk run` one turn as a user runs it, whole process, against `node -e 0`, in interleaved rounds:
//   - `run_plain`: a plain configuration (no application, no a2a, NATS, MCP, knowledge or
//     telemetry), one model call answered at once by a fake model server in its own process;
//   - `run_app_10` and `run_app_3000`: the same turn with an application of 10 and of 3,000
//     commands (a shell script printing a fixed --fisk-introspect document, standing for a compiled
//     application, so the CPU measured is fisk's own): the cost a large application adds to a run.
// Beside them, the floors those figures stand on:
//   - `node_fetch`: `node -e 'new Headers()'`, what a process pays to load Node's own fetch (undici),
//     which the official Anthropic SDK cannot do without (it builds every request's headers as a
//     `Headers`);
//   - `bare_sdk_min`: the least program answering with the official SDK (bare-sdk-min.mjs, one
//     call over the node:http transport fisk gives the SDK), bundled into one file by
//     bundle-bare-sdk-min.mjs and started by fisk's own launcher with V8's code cache: the floor
//     under `fisk run` for any program using that SDK (`bare_sdk_min_vs_node`), and what fisk
//     adds to it (`run_vs_bare_sdk_min`);
//   - `bare_sdk_10` and `bare_sdk_3000`: a bare script (bare-sdk.mjs) making the same call with
//     the official SDK after running the application's --fisk-introspect, decoding it and sending a
//     deferred definition of every command: the least any harness offering those commands through
//     the provider's tool search does. Its extra CPU for 3,000 commands over 10 is the floor under
//     fisk's (`floor_3000_extra_cpu_ms` against `app_3000_extra_cpu_ms`, and the
//     `app_3000_extra_cpu_allowed_ms` the 1.3x goal leaves).
// Wall and CPU time (user + system of the child and what it waited for) per case; the ratios are
// taken round by round (wall) and between medians (CPU, which comes in 10 ms ticks), and peak
// resident memory of the 3,000-command run. FISK_BENCH_RUN_ROUNDS sets the rounds (default 11).
import { execFileSync, fork } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { argModel, flagModel } from '../../dist/agenttest/index.js';
import { TICK_MS, machine, stats, timeNode } from '../lib/process-time.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const cli = join(root, 'dist', 'bin', 'fisk.cjs');
const probe = join(here, '..', 'lib', 'rss-probe.cjs');
const rounds = Number(process.env.FISK_BENCH_RUN_ROUNDS ?? 11);
const scratch = mkdtempSync(join(tmpdir(), 'fisk-bench-run-'));

const flag = (name) => flagModel(name, { help: `the ${name} flag` });
function leaf(name) {
  return {
    name,
    aliases: [],
    help: `Runs ${name} on a target`,
    help_long: '',
    hidden: false,
    default: false,
    tags: ['ai:read_only'],
    flags: [flag('count'), flag('level')],
    args: [argModel('target', { help: 'the target', required: true })],
    commands: [],
    restricted_schema: {
      type: 'object',
      properties: { count: { type: 'integer' }, level: { type: 'string' }, target: { type: 'string' } },
      required: ['target'],
      additionalProperties: false,
    },
  };
}
/** A directory holding agent.yaml over a shell script that answers --fisk-introspect with `commands` leaves. */
function application(commands) {
  const groups = Math.ceil(commands / 20);
  const model = {
    name: 'big',
    help: 'A large application',
    version: '1.0.0',
    author: '',
    flags: [],
    args: [],
    commands: Array.from({ length: groups }, (_, g) => ({
      name: `group${g}`,
      aliases: [],
      help: `Group ${g}`,
      help_long: '',
      hidden: false,
      default: false,
      tags: [],
      flags: [],
      args: [],
      commands: Array.from({ length: Math.min(20, commands - g * 20) }, (_, c) => leaf(`cmd${c}`)),
    })),
  };
  const dir = join(scratch, `app-${commands}`);
  mkdirSync(dir);
  writeFileSync(join(dir, 'model.json'), JSON.stringify(model));
  writeFileSync(
    join(dir, 'app'),
    `#!/bin/sh\nif [ "$1" = "--fisk-introspect" ]; then exec cat "$(dirname "$0")/model.json"; fi\necho ran "$@"\n`,
    { mode: 0o755 },
  );
  writeFileSync(
    join(dir, 'agent.yaml'),
    'identity: bench\nsystem_prompt: You answer.\napplication_path: ./app\nllm:\n  model: claude-fake-1\n',
  );
  return dir;
}
function plain() {
  const dir = join(scratch, 'plain');
  mkdirSync(dir);
  writeFileSync(join(dir, 'agent.yaml'), 'identity: bench\nsystem_prompt: You answer.\nllm:\n  model: claude-fake-1\n');
  return dir;
}

const server = fork(join(here, 'fake-server.mjs'), [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
const url = await new Promise((res) => server.once('message', (m) => res(m.url)));
const runArgs = ['run', '--no-tui', '--base-url', url, '--api-key', 'k', 'hi'];
const apps = { 10: application(10), 3000: application(3000) };
const bareSdk = join(here, 'bare-sdk.mjs');
// bundled by a child process, so the bundler's memory stays out of this one and its children
const bareSdkMin = join(scratch, 'bare-min', 'fisk.cjs');
execFileSync(process.execPath, [join(here, 'bundle-bare-sdk-min.mjs'), dirname(bareSdkMin)], { stdio: 'inherit' });
const cases = {
  node: { args: ['-e', '0'], cwd: root },
  node_fetch: { args: ['-e', 'new Headers()'], cwd: root },
  bare_sdk_min: { args: [bareSdkMin, url], cwd: root },
  run_plain: { args: [cli, ...runArgs], cwd: plain() },
  run_app_10: { args: [cli, ...runArgs], cwd: apps[10] },
  run_app_3000: { args: [cli, ...runArgs], cwd: apps[3000] },
  bare_sdk_10: { args: [bareSdk, url, join(apps[10], 'app')], cwd: root },
  bare_sdk_3000: { args: [bareSdk, url, join(apps[3000], 'app')], cwd: root },
};
const env = { PATH: process.env.PATH, HOME: scratch, NO_COLOR: '1' };
const once = (c, extra = {}) => timeNode(c.args, { cwd: c.cwd, env: { ...env, ...extra } });
const round2 = (x) => Math.round(x * 100) / 100;

try {
  once(cases.bare_sdk_min, { FISK_CODE_CACHE_WRITE: '1' }); // its code cache, as the build writes fisk's
  for (const c of Object.values(cases)) once(c); // warm the file cache
  const wall = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  const cpu = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  const rss = [];
  for (let i = 0; i < rounds; i++) {
    const names = Object.keys(cases);
    // the order rotates every round, so a burst of load from elsewhere lands on every case alike
    for (let j = 0; j < names.length; j++) {
      const name = names[(i + j) % names.length];
      const t = once(cases[name]);
      if (!name.startsWith('node') && !t.stdout.includes('done'))
        throw new Error(`${name} did not print the answer: ${t.stdout.slice(0, 300)}`);
      wall[name].push(t.wall);
      if (t.cpu !== null) cpu[name].push(t.cpu);
    }
    const file = join(scratch, 'rss');
    timeNode(['--require', probe, ...cases.run_app_3000.args], { cwd: cases.run_app_3000.cwd, env: { ...env, FISK_BENCH_RSS_FILE: file } });
    rss.push(Number(readFileSync(file, 'utf8')) / 1024);
  }
  const hasCpu = cpu.node.length === rounds;
  const ratio = (a, b) => stats(wall[a].map((x, i) => x / wall[b][i]));
  // what one case costs over another, round by round (both ran in the same round)
  const extra = (a, b) => stats(cpu[a].map((x, i) => x - cpu[b][i]));
  const cpuRatio = (a, b) => (hasCpu ? round2(stats(cpu[a]).median / Math.max(stats(cpu[b]).median, TICK_MS)) : null);
  console.log(
    JSON.stringify({
      rounds,
      ...machine(),
      node_e0_ms: stats(wall.node),
      run_plain_ms: stats(wall.run_plain),
      run_plain_cpu_ms: hasCpu ? stats(cpu.run_plain) : null,
      run_vs_node: ratio('run_plain', 'node'),
      run_vs_node_cpu: cpuRatio('run_plain', 'node'),
      run_vs_node_goal: 3,
      run_app_10_ms: stats(wall.run_app_10),
      run_app_10_cpu_ms: hasCpu ? stats(cpu.run_app_10) : null,
      run_app_3000_ms: stats(wall.run_app_3000),
      run_app_3000_cpu_ms: hasCpu ? stats(cpu.run_app_3000) : null,
      app_3000_vs_10_cpu: cpuRatio('run_app_3000', 'run_app_10'),
      app_3000_vs_10_cpu_spread: hasCpu ? stats(cpu.run_app_3000.map((x, i) => x / Math.max(cpu.run_app_10[i], TICK_MS))) : null,
      app_3000_vs_10_wall: ratio('run_app_3000', 'run_app_10'),
      app_3000_vs_10_goal: 1.3,
      app_3000_max_rss_mib: stats(rss),
      node_fetch_ms: stats(wall.node_fetch),
      node_fetch_vs_node: ratio('node_fetch', 'node'),
      node_fetch_vs_node_cpu: cpuRatio('node_fetch', 'node'),
      bare_sdk_min_ms: stats(wall.bare_sdk_min),
      bare_sdk_min_cpu_ms: hasCpu ? stats(cpu.bare_sdk_min) : null,
      bare_sdk_min_vs_node: ratio('bare_sdk_min', 'node'),
      run_vs_bare_sdk_min: ratio('run_plain', 'bare_sdk_min'),
      bare_sdk_10_ms: stats(wall.bare_sdk_10),
      bare_sdk_10_cpu_ms: hasCpu ? stats(cpu.bare_sdk_10) : null,
      bare_sdk_3000_cpu_ms: hasCpu ? stats(cpu.bare_sdk_3000) : null,
      run_app_10_vs_bare_sdk_cpu: cpuRatio('run_app_10', 'bare_sdk_10'),
      app_3000_extra_cpu_ms: hasCpu ? extra('run_app_3000', 'run_app_10') : null,
      floor_3000_extra_cpu_ms: hasCpu ? extra('bare_sdk_3000', 'bare_sdk_10') : null,
      app_3000_extra_cpu_allowed_ms: hasCpu ? Math.round(0.3 * stats(cpu.run_app_10).median) : null,
    }),
  );
} finally {
  server.disconnect();
  rmSync(scratch, { recursive: true, force: true });
}
