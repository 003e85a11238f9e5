// `fisk knowledge index` as a user runs it, whole process, against the indexing script someone
// would write by hand (bare-index.mjs: one FTS5 table, one transaction), both building a fresh index
// of the same 300-file synthetic corpus the knowledge benchmark uses, in interleaved rounds. Reports
// wall and CPU time (user + system) of each, and `node -e 0` for reference.
// FISK_BENCH_KNOWLEDGE_CLI_ROUNDS sets the rounds (default 15), FISK_BENCH_KNOWLEDGE_CLI_FILES the
// corpus size (default 300). `fisk` is the installed program, dist/bin/fisk.cjs; FISK_BENCH_CLI names
// another entry under dist/ (cli/main.js: the compiled modules without the bundle).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { syntheticCorpus } from '../lib/corpus.mjs';
import { machine, stats, TICK_MS, timeNode } from '../lib/process-time.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const cli = join(root, 'dist', process.env.FISK_BENCH_CLI ?? 'bin/fisk.cjs');
const rounds = Number(process.env.FISK_BENCH_KNOWLEDGE_CLI_ROUNDS ?? 15);
const files = Number(process.env.FISK_BENCH_KNOWLEDGE_CLI_FILES ?? 300);
const work = mkdtempSync(join(tmpdir(), 'fisk-bench-knowledge-cli-'));
const round2 = (x) => Math.round(x * 100) / 100;

try {
  const corpus = join(work, 'corpus');
  const bytes = syntheticCorpus(42).generate(corpus, files);
  writeFileSync(
    join(work, 'agent.yaml'),
    ['identity: bench', 'harness:', '  knowledge:', '    enabled: true', '    directory: store', '    paths:', '      - corpus', ''].join(
      '\n',
    ),
  );
  const store = join(work, 'store');
  const bareDb = join(work, 'bare.db');
  const fresh = () => {
    rmSync(store, { recursive: true, force: true });
    for (const suffix of ['', '-wal', '-shm']) rmSync(bareDb + suffix, { force: true });
  };
  const cases = {
    node: () => timeNode(['-e', '0'], { cwd: work }),
    bare: () => timeNode([join(here, 'bare-index.mjs'), corpus, bareDb], { cwd: work }),
    fisk: () => timeNode([cli, 'knowledge', 'index', '--config', 'agent.yaml'], { cwd: work, env: { ...process.env, NO_COLOR: '1' } }),
  };
  // a check that both really indexed the corpus, and a warm file cache
  fresh();
  const bareFiles = Number(cases.bare().stdout.trim());
  const said = cases.fisk().stdout;
  if (bareFiles !== files || !said.includes(`(${files} files`))
    throw new Error(`expected ${files} files indexed; bare said ${bareFiles}, fisk said: ${said.trim()}`);

  const wall = { node: [], bare: [], fisk: [] };
  const cpu = { node: [], bare: [], fisk: [] };
  for (let i = 0; i < rounds; i++) {
    for (const name of Object.keys(cases)) {
      fresh();
      const t = cases[name]();
      wall[name].push(t.wall);
      if (t.cpu !== null) cpu[name].push(t.cpu);
    }
  }
  const hasCpu = cpu.node.length === rounds;
  const cpuMedian = (name) => Math.max(stats(cpu[name]).median, TICK_MS);
  console.log(
    JSON.stringify({
      rounds,
      files,
      corpus_mb: round2(bytes / 1e6),
      ...machine(),
      node_e0_ms: stats(wall.node),
      bare_script_ms: stats(wall.bare),
      fisk_index_ms: stats(wall.fisk),
      fisk_vs_bare: stats(wall.fisk.map((x, i) => x / wall.bare[i])),
      node_e0_cpu_ms: hasCpu ? stats(cpu.node) : null,
      bare_script_cpu_ms: hasCpu ? stats(cpu.bare) : null,
      fisk_index_cpu_ms: hasCpu ? stats(cpu.fisk) : null,
      // CPU time comes in 10 ms ticks, so its ratio is taken between medians
      fisk_vs_bare_cpu: hasCpu ? round2(cpuMedian('fisk') / cpuMedian('bare')) : null,
      fisk_vs_bare_goal: 2,
    }),
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
