// Journal costs: append latency per record on the file backend against a bare write+fsync of the
// same bytes, on the JetStream backend against a bare JetStream publish, and the fold of a
// 10,000-record journal. The JetStream comparison alternates record by record over 7 rounds
// (FISK_BENCH_JOURNAL_ROUNDS); `ratio_spread` is the per-round ratio's median and spread.
import { mkdtempSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DiscardPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { startNatsServer } from '../../dist/agenttest/nats-server.js';
import { stats } from '../lib/process-time.mjs';
import { connectNats } from '../../dist/conns/index.js';
import {
  appendNext,
  assistantBody,
  decodeRecord,
  encodeRecord,
  fileSessionStore,
  fold,
  metaBody,
  toolResultBody,
} from '../../dist/runstate/index.js';
import { jetstreamSessionStore } from '../../dist/runstate/jetstream/store.js';

const usage = { input: 1200, output: 340, cacheRead: 9000, cacheWrite: 0, thinking: 0 };
const output = 'total 48\n' + Array.from({ length: 6 }, (_, i) => `-rw-r--r-- 1 op op 1${i}24 Nov 29 12:0${i} file-${i}.txt`).join('\n');

/** A realistic run body sequence after meta: a turn with two calls, their results, repeat. */
function bodies(n) {
  const out = [];
  for (let i = 0; out.length < n; i++) {
    out.push(
      assistantBody({
        iteration: i,
        message: {
          role: 'assistant',
          content: [
            { type: 'text', text: `Looking at step ${i}.` },
            { type: 'tool_use', id: `toolu_${i}_a`, name: 'ls', input: '{"path":"/var/log","long":true}' },
            { type: 'tool_use', id: `toolu_${i}_b`, name: 'cat', input: '{"file":"/etc/hosts"}' },
          ],
        },
        stopReason: { unified: 'tool_use', raw: 'tool_use' },
        usage,
      }),
    );
    out.push(toolResultBody({ type: 'tool_result', toolUseId: `toolu_${i}_a`, content: output }));
    out.push(toolResultBody({ type: 'tool_result', toolUseId: `toolu_${i}_b`, content: output }));
  }
  return out.slice(0, n);
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};
const round = (x, d = 1) => Math.round(x * 10 ** d) / 10 ** d;
const meta = (runId) => metaBody({ runId, created: new Date(), fingerprint: { provider: 'anthropic', model: 'm' }, prompt: 'bench' });

async function fileBench(records, rounds) {
  const dir = mkdtempSync(join(tmpdir(), 'fisk-bench-journal-'));
  const journalUs = [];
  const bareUs = [];
  try {
    const store = fileSessionStore(join(dir, 'runs'));
    for (let r = 0; r < rounds; r++) {
      // interleaved record by record, so both see the same disk and the same neighbours
      const j = await store.create(`bench-${r}`);
      await appendNext(j, meta(`bench-${r}`));
      const lines = records.map((b, i) => `${encodeRecord({ seq: i + 2, ...b })}\n`);
      const fh = await open(join(dir, `bare-${r}.json`), 'a', 0o600);
      let journalNs = 0;
      let bareNs = 0;
      for (let i = 0; i < records.length; i++) {
        let t = process.hrtime.bigint();
        await appendNext(j, records[i]);
        journalNs += Number(process.hrtime.bigint() - t);
        t = process.hrtime.bigint();
        await fh.write(lines[i]);
        await fh.sync();
        bareNs += Number(process.hrtime.bigint() - t);
      }
      journalUs.push(journalNs / 1000 / records.length);
      bareUs.push(bareNs / 1000 / records.length);
      await j.close();
      await fh.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const j = median(journalUs);
  const b = median(bareUs);
  return { append_us: round(j), bare_write_fsync_us: round(b), ratio: round(j / b, 2), records_per_round: records.length, rounds };
}

async function jetstreamBench(records, rounds) {
  const nats = await startNatsServer();
  const home = mkdtempSync(join(tmpdir(), 'fisk-bench-ctx-'));
  const { mkdirSync, writeFileSync } = await import('node:fs');
  mkdirSync(join(home, 'nats', 'context'), { recursive: true });
  writeFileSync(join(home, 'nats', 'context', 'bench.json'), JSON.stringify({ url: nats.url }));
  const conn = await connectNats('bench', { env: { HOME: home, XDG_CONFIG_HOME: home } });
  try {
    const jsm = await jetstreamManager(conn.connection);
    await jsm.streams.add({
      name: 'RUNS',
      subjects: ['fisk.sessions.>'],
      max_msgs_per_subject: 1,
      discard: DiscardPolicy.New,
      discard_new_per_subject: true,
    });
    await jsm.streams.add({ name: 'BARE', subjects: ['bare.>'] });
    const store = await jetstreamSessionStore(conn, 'RUNS');
    const js = jetstream(conn.connection);
    const journalUs = [];
    const bareUs = [];
    for (let r = 0; r < rounds; r++) {
      const j = await store.create(`bench-${r}`);
      await appendNext(j, meta(`bench-${r}`));
      const bodies = records.map((b, i) => encodeRecord({ seq: i + 2, ...b }));
      let journalNs = 0;
      let bareNs = 0;
      for (let i = 0; i < records.length; i++) {
        let t = process.hrtime.bigint();
        await appendNext(j, records[i]);
        journalNs += Number(process.hrtime.bigint() - t);
        t = process.hrtime.bigint();
        await js.publish(`bare.${r}.${i}`, bodies[i]);
        bareNs += Number(process.hrtime.bigint() - t);
      }
      journalUs.push(journalNs / 1000 / records.length);
      bareUs.push(bareNs / 1000 / records.length);
      await j.close();
    }
    const j = median(journalUs);
    const b = median(bareUs);
    const perRound = stats(journalUs.map((x, i) => (x / bareUs[i]) * 100));
    const ratio_spread = { median: perRound.median / 100, p10: perRound.p10 / 100, p90: perRound.p90 / 100 };
    return {
      append_us: round(j),
      bare_publish_us: round(b),
      ratio: round(j / b, 2),
      ratio_spread,
      records_per_round: records.length,
      rounds,
    };
  } finally {
    await conn.connection.close();
    await nats.stop();
    rmSync(home, { recursive: true, force: true });
  }
}

function foldBench(n) {
  const records = [{ seq: 1, ...meta('fold') }, ...bodies(n - 1).map((b, i) => ({ seq: i + 2, ...b }))];
  const lines = records.map((r) => encodeRecord(r));
  const decoded = lines.map((l) => decodeRecord(l));
  for (let i = 0; i < 5; i++) fold(decoded);
  const foldMs = [];
  const loadMs = [];
  for (let i = 0; i < 15; i++) {
    let t = process.hrtime.bigint();
    fold(decoded);
    foldMs.push(Number(process.hrtime.bigint() - t) / 1e6);
    t = process.hrtime.bigint();
    fold(lines.map((l) => decodeRecord(l)));
    loadMs.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return { records: n, fold_ms: round(median(foldMs), 2), decode_validate_and_fold_ms: round(median(loadMs), 2) };
}

const file = await fileBench(bodies(200), 5);
const js = await jetstreamBench(bodies(300), Number(process.env.FISK_BENCH_JOURNAL_ROUNDS ?? 7));
const f = foldBench(10_000);
console.log(JSON.stringify({ file, jetstream: js, fold: f, targets: { file_ratio_max: 1.2, fold_ms_max: 100 } }));
