// Cold start of the built CLI, against a bare `node -e 0`, in interleaved rounds:
//   - wall and CPU time of `fisk --help`,
//   - wall and CPU time of `fisk info` on the small shop example (an application answering
//     --fisk-introspect; its CPU time includes the application's own start),
//   - the same for an application that starts at native speed: a shell script answering
//     --fisk-introspect with the shop's command model, standing for a compiled fisk application
//     (how most of them ship). The shop, a Node program, spends about a `node -e 0` starting on
//     its own, which fisk overlaps with its own start but cannot remove; this figure is fisk's part,
//     `info_native_ms`, next to the shop's `info_ms`.
//   - the shop's own `--fisk-introspect` alone (`shop_alone_ms`), and `fisk info` less it, round by
//     round (`info_over_shop_ms`): the shop answers while fisk loads, so this is what fisk adds to
//     an application's own start, and the floor under `info_ms` is the shop's own time,
//   - peak resident memory of `fisk --help` (child's own process.resourceUsage().maxRSS),
//   - `fisk info` run from the compiled modules (dist/cli/main.js) instead of the bundled program
//     the package installs (dist/bin/fisk.cjs), as the ratio bundled / compiled: what bundling saves.
// The 250 ms goal for `fisk info` is a wall time on an idle machine: info_ms compares to it only
// while the load average stays below the number of cores. On a busy machine read the ratios to
// `node -e 0` (info_vs_node, info_vs_node_cpu) and info_cpu_ms instead.
// FISK_BENCH_STARTUP_ROUNDS sets the number of rounds (default 15).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { machine, stats, TICK_MS, timeNode } from '../lib/process-time.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const cli = join(root, 'dist', 'bin', 'fisk.cjs');
const compiled = join(root, 'dist', 'cli', 'main.js');
const shop = join(root, 'examples', 'shop');
const probe = join(here, '..', 'lib', 'rss-probe.cjs');
const rounds = Number(process.env.FISK_BENCH_STARTUP_ROUNDS ?? 15);
const scratch = mkdtempSync(join(tmpdir(), 'fisk-bench-startup-'));

/** A directory with agent.yaml over a shell script that answers --fisk-introspect with the shop's model. */
function nativeApplication() {
  const model = timeNode([join(shop, 'shop.mjs'), '--fisk-introspect'], { cwd: shop }).stdout.trim();
  JSON.parse(model); // a document on one line: no line of it can end the here-document
  const dir = join(scratch, 'native');
  mkdirSync(dir);
  const script = [
    '#!/bin/sh',
    '# Stands for a compiled fisk application: answers --fisk-introspect with a fixed command model.',
    'if [ "$1" != "--fisk-introspect" ]; then echo "this stand-in only answers --fisk-introspect" >&2; exit 2; fi',
    "cat <<'MODEL'",
    model,
    'MODEL',
    '',
  ].join('\n');
  writeFileSync(join(dir, 'app'), script, { mode: 0o755 });
  const config = readFileSync(join(shop, 'agent.yaml'), 'utf8').replace(/^application_path: .*$/m, 'application_path: ./app');
  if (!config.includes('application_path: ./app'))
    throw new Error('examples/shop/agent.yaml has no application_path line to point at the stand-in');
  writeFileSync(join(dir, 'agent.yaml'), config);
  return dir;
}

const native = nativeApplication();
const cases = {
  node: { args: ['-e', '0'], cwd: root },
  help: { args: [cli, '--help'], cwd: root },
  info: { args: [cli, 'info', '--config', 'agent.yaml'], cwd: shop },
  info_native: { args: [cli, 'info', '--config', 'agent.yaml'], cwd: native },
  info_compiled: { args: [compiled, 'info', '--config', 'agent.yaml'], cwd: shop },
  shop_alone: { args: [join(shop, 'shop.mjs'), '--fisk-introspect'], cwd: shop },
};

function once(c, rssFile) {
  const env = { ...process.env, NO_COLOR: '1' };
  if (rssFile) env.FISK_BENCH_RSS_FILE = rssFile;
  return timeNode(rssFile ? ['--require', probe, ...c.args] : c.args, { cwd: c.cwd, env });
}

const round2 = (x) => Math.round(x * 100) / 100;

try {
  for (const c of Object.values(cases)) once(c); // warm the file cache
  const wall = { node: [], help: [], info: [], info_native: [], info_compiled: [], shop_alone: [] };
  const cpu = { node: [], help: [], info: [], info_native: [], info_compiled: [], shop_alone: [] };
  const rss = { node: [], help: [] };
  for (let i = 0; i < rounds; i++) {
    for (const name of Object.keys(cases)) {
      const t = once(cases[name]);
      wall[name].push(t.wall);
      if (t.cpu !== null) cpu[name].push(t.cpu);
    }
    for (const name of Object.keys(rss)) {
      const file = join(scratch, `rss-${name}`);
      once(cases[name], file);
      rss[name].push(Number(readFileSync(file, 'utf8')) / 1024);
    }
  }
  const ratio = (name) => stats(wall[name].map((x, i) => x / wall.node[i]));
  const hasCpu = cpu.node.length === rounds;
  // CPU time comes in 10 ms ticks, so its ratio is taken between medians rather than round by round
  const cpuRatio = (name) => (hasCpu ? round2(stats(cpu[name]).median / Math.max(stats(cpu.node).median, TICK_MS)) : null);
  const out = {
    rounds,
    ...machine(),
    node_e0_ms: stats(wall.node),
    node_e0_cpu_ms: hasCpu ? stats(cpu.node) : null,
    help_ms: stats(wall.help),
    help_cpu_ms: hasCpu ? stats(cpu.help) : null,
    help_vs_node: ratio('help'),
    help_vs_node_cpu: cpuRatio('help'),
    help_vs_node_goal: 2.5,
    info_ms: stats(wall.info),
    info_cpu_ms: hasCpu ? stats(cpu.info) : null,
    info_vs_node: ratio('info'),
    info_vs_node_cpu: cpuRatio('info'),
    info_goal_ms: 250,
    info_native_ms: stats(wall.info_native),
    info_native_cpu_ms: hasCpu ? stats(cpu.info_native) : null,
    info_native_vs_node: ratio('info_native'),
    info_native_vs_node_cpu: cpuRatio('info_native'),
    shop_alone_ms: stats(wall.shop_alone),
    info_over_shop_ms: stats(wall.info.map((x, i) => x - wall.shop_alone[i])),
    info_compiled_ms: stats(wall.info_compiled),
    info_compiled_cpu_ms: hasCpu ? stats(cpu.info_compiled) : null,
    info_bundled_vs_compiled: stats(wall.info.map((x, i) => x / wall.info_compiled[i])),
    info_bundled_vs_compiled_cpu: hasCpu ? round2(stats(cpu.info).median / Math.max(stats(cpu.info_compiled).median, TICK_MS)) : null,
    help_max_rss_mib: stats(rss.help),
    node_e0_max_rss_mib: stats(rss.node),
    help_rss_goal_mib: 70,
  };
  console.log(JSON.stringify(out));
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
