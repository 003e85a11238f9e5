#!/usr/bin/env node
// Runs every benchmark under bench/<name>/bench.mjs against the built library and prints one JSON
// document: { "<name>": <that benchmark's JSON>, ..., "summary": [...] }. The summary lists the
// headline figures (loop, start-up, knowledge indexing, a2a latency) from the benchmarks that ran, each with its
// median, spread (10th to 90th percentile), goal and whether the median meets it, and the knowledge search
// quality on the held-out questions against its goals.
// `npm run bench -- knowledge` runs one.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const only = new Set(process.argv.slice(2));

execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });

const results = {};
const failed = [];
for (const name of readdirSync(here).sort()) {
  const file = join(here, name, 'bench.mjs');
  if (!existsSync(file)) continue;
  if (only.size > 0 && !only.has(name)) continue;
  process.stderr.write(`bench: ${name}\n`);
  let text;
  try {
    text = execFileSync(process.execPath, ['--expose-gc', file], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 << 20 }).toString().trim();
  } catch (err) {
    // one broken benchmark is reported and the others still run
    failed.push(name);
    results[name] = { error: `benchmark exited with status ${err.status ?? 'unknown'}; its error is on stderr above`, output: (err.stdout ?? '').toString().slice(-2000) };
    continue;
  }
  try {
    results[name] = JSON.parse(text.split('\n').pop() ?? 'null');
  } catch {
    failed.push(name);
    results[name] = { error: 'benchmark did not print JSON on its last line', output: text.slice(-2000) };
  }
}
/** One headline figure: the median and spread of a series, its goal (at most), and whether it is met. */
function figure(measure, series, goal, unit, note) {
  if (series === undefined || series === null || typeof series.median !== 'number') return undefined;
  return { measure, unit, median: series.median, p10: series.p10, p90: series.p90, goal_at_most: goal, met: series.median <= goal, ...(note === undefined ? {} : { note }) };
}

function summary(r) {
  const out = [];
  const loop = r.loop?.loop;
  for (const [wire, label] of [['anthropic', 'Anthropic Messages'], ['chat', 'Chat Completions'], ['responses', 'Responses']]) {
    const ratio = loop?.[wire]?.fisk_ai?.ratio_to_bare;
    out.push(figure(`agent loop per model call vs a bare SDK tool loop, ${label}, CPU`, ratio?.cpu, 1, 'ratio'));
    out.push(figure(`agent loop per model call vs a bare SDK tool loop, ${label}, wall`, ratio?.wall, 1, 'ratio'));
  }
  const s = r.startup;
  if (s !== undefined) {
    const busy = s.load_average?.[0] >= s.cores;
    out.push(figure('fisk --help wall vs node -e 0', s.help_vs_node, s.help_vs_node_goal, 'ratio'));
    out.push(figure('fisk --help peak resident memory', s.help_max_rss_mib, s.help_rss_goal_mib, 'MiB'));
    out.push(
      figure(
        'fisk info with a small application (the shop, a Node program), wall',
        s.info_ms,
        s.info_goal_ms,
        'ms',
        [
          s.shop_alone_ms === undefined ? undefined : `the shop's own --fisk-introspect takes ${s.shop_alone_ms.median} ms alone; fisk adds ${s.info_over_shop_ms.median} ms to it (info_over_shop_ms)`,
          busy ? `the load average (${s.load_average[0]}) was at or above the ${s.cores} cores, so this wall time includes waiting for a core; see info_cpu_ms and info_vs_node` : undefined,
        ]
          .filter((n) => n !== undefined)
          .join('; ') || undefined,
      ),
    );
    out.push(
      figure(
        'fisk info with a small application starting at native speed (a shell script), wall',
        s.info_native_ms,
        s.info_goal_ms,
        'ms',
        busy ? `the load average (${s.load_average[0]}) was at or above the ${s.cores} cores, so this wall time includes waiting for a core; see info_native_cpu_ms and info_native_vs_node` : undefined,
      ),
    );
  }
  const k = r.knowledge;
  out.push(figure('knowledge indexing in process vs inserting the same chunks into both FTS5 tables, CPU', k?.index_vs_bare_two_tables_cpu, k?.index_vs_bare_two_tables_goal, 'ratio'));
  const kc = r['knowledge-cli'];
  if (kc !== undefined) {
    out.push(figure(`fisk knowledge index (whole process) vs a bare FTS5 indexing script, ${kc.files}-file corpus, wall`, kc.fisk_vs_bare, kc.fisk_vs_bare_goal, 'ratio'));
    if (kc.fisk_vs_bare_cpu !== null) {
      out.push({ ...figure(`fisk knowledge index (whole process) vs a bare FTS5 indexing script, ${kc.files}-file corpus, CPU`, { median: kc.fisk_vs_bare_cpu, p10: null, p90: null }, kc.fisk_vs_bare_goal, 'ratio'), note: 'a ratio of the medians of CPU time; its spread is in fisk_index_cpu_ms and bare_script_cpu_ms' });
    }
  }
  const a = r.a2a?.latency;
  if (a !== undefined) {
    out.push(figure('a2a trivial remote tool call vs a bare NATS request of the same payload, wall', { ...a.wall_ratio, p10: a.wall_ratio.p25, p90: a.wall_ratio.p75 }, a.target_ratio, 'ratio', 'spread is p25 to p75 of the per-round ratios'));
    out.push(figure('a2a trivial remote tool call vs a bare NATS request of the same payload, CPU', { ...a.cpu_ratio, p10: a.cpu_ratio.p25, p90: a.cpu_ratio.p75 }, a.target_ratio, 'ratio', 'spread is p25 to p75 of the per-round ratios'));
  }
  const q = r['knowledge-quality'];
  if (q?.lexical?.held_out !== undefined) {
    const held = q.lexical.held_out;
    const note = `held-out half of ${held.questions} questions; the tuning half is in knowledge-quality.lexical.tune`;
    for (const [key, label, goal] of [['recall_at_1', 'recall@1', q.targets?.held_out_recall_at_1], ['recall_at_5', 'recall@5', q.targets?.held_out_recall_at_5]]) {
      if (typeof goal !== 'number') continue;
      out.push({ measure: `knowledge search (lexical) finds a right document, ${label}`, unit: 'share', value: held[key], goal_at_least: goal, met: held[key] >= goal, note });
    }
    const hybrid = q.hybrid_toy_embedder?.held_out;
    if (hybrid !== undefined) {
      out.push({ measure: 'knowledge search, hybrid (toy embedder) no worse than lexical: recall@1, recall@5 and MRR', unit: 'share', value: { recall_at_1: hybrid.recall_at_1, recall_at_5: hybrid.recall_at_5, mrr: hybrid.mrr }, goal: 'each at least the lexical figure', met: q.met?.hybrid_not_worse === true, note });
    }
  }
  return out.filter((f) => f !== undefined);
}

results.summary = summary(results);
if (failed.length > 0) results.failed = failed;
process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
if (failed.length > 0) {
  process.stderr.write(`bench: failed: ${failed.join(', ')}\n`);
  process.exitCode = 1;
}
