// Cold start of the built CLI, against a bare `node -e 0`, in interleaved rounds:
//   - wall time of `fisk --help`,
//   - wall time of `fisk info` on the small shop example (an application answering --fisk-introspect),
//   - peak resident memory of `fisk --help` (child's own process.resourceUsage().maxRSS).
// FISK_BENCH_STARTUP_ROUNDS sets the number of rounds (default 15).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const cli = join(root, 'dist', 'cli', 'main.js');
const shop = join(root, 'examples', 'shop');
const probe = join(here, 'rss-probe.mjs');
const rounds = Number(process.env.FISK_BENCH_STARTUP_ROUNDS ?? 15);
const scratch = mkdtempSync(join(tmpdir(), 'fisk-bench-startup-'));

const cases = {
  node: { args: ['-e', '0'], cwd: root },
  help: { args: [cli, '--help'], cwd: root },
  info: { args: [cli, 'info', '--config', 'agent.yaml'], cwd: shop },
};

function once(c, rssFile) {
  const args = rssFile ? ['--import', probe, ...c.args] : c.args;
  const env = { ...process.env, NO_COLOR: '1' };
  if (rssFile) env.FISK_BENCH_RSS_FILE = rssFile;
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { cwd: c.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr.toString().slice(0, 500)}`);
  return ms;
}

function stats(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * (s.length - 1) + 0.5))];
  const r = (x) => Math.round(x * 10) / 10;
  return { median: r(q(0.5)), p10: r(q(0.1)), p90: r(q(0.9)), min: r(s[0]), max: r(s[s.length - 1]) };
}

try {
  for (const c of Object.values(cases)) once(c); // warm the file cache
  const wall = { node: [], help: [], info: [] };
  const rss = { node: [], help: [] };
  for (let i = 0; i < rounds; i++) {
    for (const name of Object.keys(cases)) wall[name].push(once(cases[name]));
    for (const name of Object.keys(rss)) {
      const file = join(scratch, `rss-${name}`);
      once(cases[name], file);
      rss[name].push(Number(readFileSync(file, 'utf8')) / 1024);
    }
  }
  const ratios = wall.help.map((h, i) => h / wall.node[i]);
  const infoRatios = wall.info.map((h, i) => h / wall.node[i]);
  const out = {
    rounds,
    node_e0_ms: stats(wall.node),
    help_ms: stats(wall.help),
    help_vs_node: stats(ratios),
    help_vs_node_goal: 2.5,
    info_ms: stats(wall.info),
    info_vs_node: stats(infoRatios),
    info_goal_ms: 250,
    help_max_rss_mib: stats(rss.help),
    node_e0_max_rss_mib: stats(rss.node),
    help_rss_goal_mib: 70,
  };
  console.log(JSON.stringify(out));
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
