#!/usr/bin/env node
// Runs every benchmark under bench/<name>/bench.mjs against the built library and prints one JSON
// document: { "<name>": <that benchmark's JSON>, ..., "summary": [...] }. The summary lists the
// headline figures (loop, start-up, knowledge indexing, a2a latency) from the benchmarks that ran, each with its
// median, spread (10th to 90th percentile), goal and whether the median meets it, and the knowledge search
// quality on the held-out questions against its goals, and what the sandbox adds to a tool call. `targets` lists every stated performance
// target, each with its measured median and spread, its goal and met / not met; a target whose
// benchmark did not run is listed as not measured and not met.
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
    text = execFileSync(process.execPath, ['--expose-gc', file], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 << 20 })
      .toString()
      .trim();
  } catch (err) {
    // one broken benchmark is reported and the others still run
    failed.push(name);
    results[name] = {
      error: `benchmark exited with status ${err.status ?? 'unknown'}; its error is on stderr above`,
      output: (err.stdout ?? '').toString().slice(-2000),
    };
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
  return {
    measure,
    unit,
    median: series.median,
    p10: series.p10,
    p90: series.p90,
    goal_at_most: goal,
    met: series.median <= goal,
    ...(note === undefined ? {} : { note }),
  };
}

function summary(r) {
  const out = [];
  const loop = r.loop?.loop;
  for (const [wire, label] of [
    ['anthropic', 'Anthropic Messages'],
    ['chat', 'Chat Completions'],
    ['responses', 'Responses'],
  ]) {
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
          s.shop_alone_ms === undefined
            ? undefined
            : `the shop's own --fisk-introspect takes ${s.shop_alone_ms.median} ms alone; fisk adds ${s.info_over_shop_ms.median} ms to it (info_over_shop_ms)`,
          busy
            ? `the load average (${s.load_average[0]}) was at or above the ${s.cores} cores, so this wall time includes waiting for a core; see info_cpu_ms and info_vs_node`
            : undefined,
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
        busy
          ? `the load average (${s.load_average[0]}) was at or above the ${s.cores} cores, so this wall time includes waiting for a core; see info_native_cpu_ms and info_native_vs_node`
          : undefined,
      ),
    );
  }
  const k = r.knowledge;
  out.push(
    figure(
      'knowledge indexing in process vs inserting the same chunks into both FTS5 tables, CPU',
      k?.index_vs_bare_two_tables_cpu,
      k?.index_vs_bare_two_tables_goal,
      'ratio',
    ),
  );
  const kc = r['knowledge-cli'];
  if (kc !== undefined) {
    out.push(
      figure(
        `fisk knowledge index (whole process) vs a bare FTS5 indexing script, ${kc.files}-file corpus, wall`,
        kc.fisk_vs_bare,
        kc.fisk_vs_bare_goal,
        'ratio',
      ),
    );
    if (kc.fisk_vs_bare_cpu !== null) {
      out.push({
        ...figure(
          `fisk knowledge index (whole process) vs a bare FTS5 indexing script, ${kc.files}-file corpus, CPU`,
          { median: kc.fisk_vs_bare_cpu, p10: null, p90: null },
          kc.fisk_vs_bare_goal,
          'ratio',
        ),
        note: 'a ratio of the medians of CPU time; its spread is in fisk_index_cpu_ms and bare_script_cpu_ms',
      });
    }
  }
  const a = r.a2a?.latency;
  if (a !== undefined) {
    out.push(
      figure(
        'a2a trivial remote tool call vs a bare NATS request of the same payload, wall',
        { ...a.wall_ratio, p10: a.wall_ratio.p25, p90: a.wall_ratio.p75 },
        a.target_ratio,
        'ratio',
        'spread is p25 to p75 of the per-round ratios',
      ),
    );
    out.push(
      figure(
        'a2a trivial remote tool call vs a bare NATS request of the same payload, CPU',
        { ...a.cpu_ratio, p10: a.cpu_ratio.p25, p90: a.cpu_ratio.p75 },
        a.target_ratio,
        'ratio',
        'spread is p25 to p75 of the per-round ratios',
      ),
    );
  }
  const q = r['knowledge-quality'];
  if (q?.lexical?.held_out !== undefined) {
    const held = q.lexical.held_out;
    const note = `held-out half of ${held.questions} questions; the tuning half is in knowledge-quality.lexical.tune`;
    for (const [key, label, goal] of [
      ['recall_at_1', 'recall@1', q.targets?.held_out_recall_at_1],
      ['recall_at_5', 'recall@5', q.targets?.held_out_recall_at_5],
    ]) {
      if (typeof goal !== 'number') continue;
      out.push({
        measure: `knowledge search (lexical) finds a right document, ${label}`,
        unit: 'share',
        value: held[key],
        goal_at_least: goal,
        met: held[key] >= goal,
        note,
      });
    }
    const hybrid = q.hybrid_toy_embedder?.held_out;
    if (hybrid !== undefined) {
      out.push({
        measure: 'knowledge search, hybrid (toy embedder) no worse than lexical: recall@1, recall@5 and MRR',
        unit: 'share',
        value: { recall_at_1: hybrid.recall_at_1, recall_at_5: hybrid.recall_at_5, mrr: hybrid.mrr },
        goal: 'each at least the lexical figure',
        met: q.met?.hybrid_not_worse === true,
        note,
      });
    }
  }
  const box = r.sandbox;
  if (box?.sandboxed !== undefined) {
    out.push(
      figure(
        'a trivial command through the tool runner inside the bubblewrap sandbox, wall',
        box.sandboxed.wall_ms,
        box.goal_ms,
        'ms',
        `${box.unsandboxed.wall_ms.median} ms unsandboxed; the sandbox adds ${box.added_ms.sandbox} ms, with prlimit limits ${box.added_ms.sandbox_and_limits} ms`,
      ),
    );
  }
  return out.filter((f) => f !== undefined);
}

const round1 = (x) => Math.round(x * 10) / 10;

/**
 * Every stated target, whether or not its benchmark ran: the measured figure with its spread, the
 * goal, and met / not met. A target whose benchmark did not run (or failed) is listed as not met,
 * with a note naming the benchmark, so none is ever left out of the summary.
 */
function targets(r) {
  const out = [];
  /** One target: `get` returns { median, p10, p90 } (a ratio series) or undefined when not measured. */
  const target = (bench, measure, goal, get, unit = 'ratio', note) => {
    let s;
    try {
      s = r[bench]?.error === undefined ? get(r[bench]) : undefined;
    } catch {
      s = undefined;
    }
    if (s === undefined || s === null || typeof s.median !== 'number') {
      out.push({
        target: measure,
        bench,
        goal_at_most: goal,
        unit,
        median: null,
        met: false,
        note: `not measured: \`npm run bench -- ${bench}\` did not run or failed`,
      });
      return;
    }
    out.push({
      target: measure,
      bench,
      goal_at_most: goal,
      unit,
      median: s.median,
      p10: s.p10 ?? null,
      p90: s.p90 ?? null,
      met: s.median <= goal,
      ...(note === undefined && s.note === undefined ? {} : { note: s.note ?? note }),
    });
  };
  for (const w of [1, 2])
    target(
      'jobs',
      `jobs through fisk serve (file task store, ${w} worker${w === 1 ? '' : 's'}) vs a bare JetStream pull worker that fsyncs its result before acking, wall per job`,
      1.5,
      (j) => {
        const v = j.vs_bare_fsync[`workers_${w}`];
        return {
          ...v.ratio,
          note: `CPU a job ${round1(v.fisk_cpu_ms_per_job.median)} ms against the bare worker's ${round1(v.bare_cpu_ms_per_job.median)}`,
        };
      },
    );
  target('jobs', 'files left behind per job by the file task store', 0, (j) => ({ median: j.leftover_files_per_job }), 'files');
  target(
    'knowledge-search',
    'knowledge search p50, 1k real Markdown files, vs a bare FTS5 top-5 query of the same terms',
    2,
    (k) => k.real_1k.p50_ratio,
  );
  target('knowledge-search', 'knowledge search p50, 10k files, vs bare FTS5', 1.5, (k) => ({
    ...k.synthetic_10k.p50_ratio,
    ...(k.synthetic_10k.candidates_p50_ratio === undefined
      ? {}
      : { note: `floor: the ranking's candidate query alone is ${k.synthetic_10k.candidates_p50_ratio.median}x the bare query` }),
  }));
  target('knowledge-search', 'knowledge search p99, 10k files, vs bare FTS5 p99', 1.5, (k) => k.synthetic_10k.p99_ratio);
  const q = r['knowledge-quality'];
  for (const key of ['recall_at_1', 'recall_at_5']) {
    // the held-out figures before the search speed work (bench/knowledge-quality prints them as its baseline)
    const base = q?.baseline?.[key] ?? { recall_at_1: 0.697, recall_at_5: 0.939 }[key];
    const value = q?.lexical?.held_out?.[key];
    if (typeof base === 'number' && typeof value === 'number')
      out.push({
        target: `knowledge search held-out ${key.replace('_at_', '@')} unchanged or better`,
        bench: 'knowledge-quality',
        goal_at_least: base,
        unit: 'share',
        median: value,
        met: value >= base,
      });
    else
      out.push({
        target: `knowledge search held-out ${key.replace('_at_', '@')} unchanged or better`,
        bench: 'knowledge-quality',
        goal_at_least: base ?? null,
        unit: 'share',
        median: null,
        met: false,
        note: 'not measured: `npm run bench -- knowledge-quality` did not run or failed',
      });
  }
  for (const c of [1, 4])
    target(
      'served-tool',
      `a served command tool over NATS, ${c} caller${c === 1 ? '' : 's'}, vs a bare NATS responder spawning the same command, wall per call`,
      1.2,
      (s) => s[`callers_${c}`].ratio,
    );
  target(
    'mcp',
    '`fisk mcp` tools/call of a command vs a bare MCP SDK server spawning the same command, wall per call',
    1.1,
    (m) => m.command_vs_bare_spawn.ratio,
  );
  target('run', '`fisk run` one turn vs `node -e 0`, wall', 3, (x) => ({
    ...x.run_vs_node,
    ...(x.bare_sdk_min_vs_node === undefined
      ? {}
      : {
          note: `floor: the least program answering with the official Anthropic SDK, bundled and code-cached as fisk is, is ${x.bare_sdk_min_vs_node.median}x node -e 0, and fisk ${x.run_vs_bare_sdk_min.median}x that; loading Node's fetch alone, which the SDK needs, is ${x.node_fetch_vs_node.median}x`,
        }),
  }));
  target('run', '`fisk run` with a 3,000-command application vs a 10-command one, CPU', 1.3, (x) => ({
    ...x.app_3000_vs_10_cpu_spread,
    ...(x.floor_3000_extra_cpu_ms === undefined || x.floor_3000_extra_cpu_ms === null
      ? {}
      : {
          note: `3,000 commands add ${x.app_3000_extra_cpu_ms.median} ms of CPU; a bare SDK script sending the same deferred definitions adds ${x.floor_3000_extra_cpu_ms.median} ms (p10 ${x.floor_3000_extra_cpu_ms.p10}, p90 ${x.floor_3000_extra_cpu_ms.p90}); the goal allows ${x.app_3000_extra_cpu_allowed_ms} ms`,
        }),
  }));
  target('journal', 'JetStream journal append vs a bare JetStream publish with ack, wall per record', 2, (j) => j.jetstream.ratio_spread);
  target(
    'sandbox',
    'what the bubblewrap sandbox adds to a trivial tool call, wall median',
    25,
    (b) => ({ median: b.added_ms.sandbox }),
    'ms',
  );
  target('telemetry', 'telemetry spans dropped at 1,000 tool calls/s', 0, (t) => ({ median: t.flood.at_1000_per_s.dropped }), 'spans');
  target(
    'telemetry',
    'telemetry spans beyond what it delivers at a flood, not counted or reported',
    0,
    (t) => ({ median: t.flood.flood.uncounted }),
    'spans',
  );
  return out;
}

results.summary = summary(results);
results.targets = targets(results);
if (failed.length > 0) results.failed = failed;
process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
// the targets again as lines on stderr, for a reader at the terminal
for (const t of results.targets) {
  const figure =
    t.median === null ? 'not measured' : `${t.median}${t.p10 === undefined || t.p10 === null ? '' : ` (p10 ${t.p10}, p90 ${t.p90})`}`;
  const goal = t.goal_at_most === undefined ? `>= ${t.goal_at_least}` : `<= ${t.goal_at_most}`;
  process.stderr.write(
    `${t.met ? 'met    ' : 'NOT MET'} ${t.target}: ${figure} ${t.unit}, goal ${goal}${t.note === undefined ? '' : ` (${t.note})`}\n`,
  );
}
if (failed.length > 0) {
  process.stderr.write(`bench: failed: ${failed.join(', ')}\n`);
  process.exitCode = 1;
}
