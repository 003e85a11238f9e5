// Memory store cost per operation: the stored format, and the file backend on a temp directory
// (create, read, overwrite, list of 200 entries), and the JetStream KV backend on a private
// nats-server (the same operations; skipped with a note when nats-server is not installed).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kvm } from '@nats-io/kv';
import { connect } from '@nats-io/transport-node';
import { startNatsServer } from '../../dist/agenttest/index.js';
import { FileStore, JetStreamStore, Scope, parseEntry, serializeEntry } from '../../dist/memory/index.js';

function perCall(n, fn) {
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) fn(i);
  return Number(process.hrtime.bigint() - start) / n / 1000;
}

async function perCallAsync(n, fn) {
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await fn(i);
  return Number(process.hrtime.bigint() - start) / n / 1000;
}

const round = (us) => Math.round(us * 100) / 100;
const body = 'A remembered fact. '.repeat(200);
const text = serializeEntry('a: description with "quotes" and - dashes', body);
perCall(2000, () => parseEntry(serializeEntry('warm', body)));
const serializeUs = perCall(5000, () => serializeEntry('a: description with "quotes" and - dashes', body));
const parseUs = perCall(5000, () => parseEntry(text));

async function storeOps(prefix, store) {
  const scope = new Scope();
  const n = 200;
  return {
    [`${prefix}_create_us`]: round(await perCallAsync(n, (i) => store.create(`note.${i}`, `note number ${i}`, body, { scope }))),
    [`${prefix}_read_us`]: round(await perCallAsync(n, (i) => store.read(`note.${i}`, { scope }))),
    [`${prefix}_update_us`]: round(await perCallAsync(n, (i) => store.update(`note.${i}`, `note number ${i} again`, body, { scope }))),
    [`${prefix}_list_200_entries_us`]: round(await perCallAsync(10, () => store.list())),
  };
}

const result = { serialize_us: round(serializeUs), parse_us: round(parseUs) };
const dir = mkdtempSync(join(tmpdir(), 'fisk-bench-mem-'));
try {
  Object.assign(result, await storeOps('file', await FileStore.open(join(dir, 'm'))));
} finally {
  rmSync(dir, { recursive: true, force: true });
}

let server;
try {
  server = await startNatsServer();
} catch (err) {
  result.jetstream = `skipped: ${err.message.split('\n')[0]}`;
}
if (server !== undefined) {
  const nc = await connect({ servers: server.url });
  try {
    await new Kvm(nc).create('BENCH_MEMORY');
    Object.assign(result, await storeOps('jetstream', await JetStreamStore.open({ nats: nc, bucket: 'BENCH_MEMORY', prefix: 'bench' })));
  } finally {
    await nc.close();
    await server.stop();
  }
}
console.log(JSON.stringify(result));
