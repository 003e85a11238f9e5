// Memory store cost per operation: the stored format, and the file backend on a temp directory
// (create, read, overwrite, list of 200 entries). JetStream is left out: it needs a server.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileStore, Scope, parseEntry, serializeEntry } from '../../dist/memory/index.js';

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

const dir = mkdtempSync(join(tmpdir(), 'fisk-bench-mem-'));
try {
  const store = await FileStore.open(join(dir, 'm'));
  const scope = new Scope();
  const n = 200;
  const createUs = await perCallAsync(n, (i) => store.create(`note.${i}`, `note number ${i}`, body, { scope }));
  const readUs = await perCallAsync(n, (i) => store.read(`note.${i}`, { scope }));
  const updateUs = await perCallAsync(n, (i) => store.update(`note.${i}`, `note number ${i} again`, body, { scope }));
  const listUs = await perCallAsync(20, () => store.list());
  console.log(
    JSON.stringify({
      serialize_us: round(serializeUs),
      parse_us: round(parseUs),
      file_create_us: round(createUs),
      file_read_us: round(readUs),
      file_update_us: round(updateUs),
      file_list_200_entries_us: round(listUs),
    }),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
