import Database from 'better-sqlite3';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.js';
import { runCli } from '../../src/cli/program.js';
import { captureIo } from '../../src/cli/test-io.js';
import { scribble, startFakeEmbeddings, tempDir } from './support.js';
import type { FakeEmbeddings, TempDir } from './support.js';

let tmp: TempDir;

const CONFIG = `identity: docs
harness:
  knowledge:
    enabled: true
    paths: [docs]
    citations:
      - pattern: '^docs/(.+)\\.md$'
        replace: 'https://example.org/$1.html#\${anchor}'
`;

beforeEach(() => {
  tmp = tempDir();
  tmp.write('agent.yaml', CONFIG);
  tmp.write(
    'docs/retention.md',
    '# Retention\n\nThe retention policy keeps backups for thirty days.\n\n## Exceptions\n\nLegal holds override retention.\n',
  );
  tmp.write('docs/policy.md', '# Policy\n\nEvery policy is reviewed yearly.\n\n## Storage\n\nBackups are encrypted at rest.\n');
});
afterEach(() => tmp.cleanup());

async function fisk(args: string[], env: Record<string, string> = {}) {
  const io = captureIo(env, tmp.path);
  const code = await runCli(['knowledge', ...args], io);
  return { code, out: io.stdout(), err: io.stderr() };
}

describe('fisk knowledge', () => {
  it('refuses a configuration without knowledge enabled, naming the key', async () => {
    tmp.write('agent.yaml', 'identity: docs\n');
    const r = await fisk(['stats']);
    expect(r.code).toBe(EXIT.config);
    expect(r.err).toContain('harness.knowledge.enabled');
  });

  it('refuses a relative --store-dir and FISK_AI_STORE_DIR', async () => {
    expect((await fisk(['--store-dir', 'rel', 'stats'])).err).toMatch(/--store-dir must be an absolute path, got "rel"/);
    const r = await fisk(['stats'], { FISK_AI_STORE_DIR: 'rel' });
    expect(r.code).toBe(EXIT.usage);
  });

  it('says "not built" instead of an empty answer before the first index', async () => {
    const s = await fisk(['search', 'retention']);
    expect(s.code).toBe(EXIT.error);
    expect(s.err).toContain('has not been built yet');
    const json = await fisk(['search', 'retention', '--json']);
    expect(json.code).toBe(EXIT.error);
    expect(json.out).toBe('');
    expect((await fisk(['vocab', '--json'])).code).toBe(EXIT.error);
    expect((await fisk(['match', 'retention', '--json'])).code).toBe(EXIT.error);
    expect((await fisk(['stats'])).out).toContain('not built');
    expect((await fisk(['reset', '--force'])).out).toContain('no knowledge index to reset');
  });

  it('indexes, searches, matches, shows, lists and removes', async () => {
    const idx = await fisk(['index']);
    expect(idx.code).toBe(EXIT.ok);
    // which tier answers is a note on stderr, never a line of the output
    expect(idx.err).toContain('tier: lexical (FTS5 BM25)');
    expect(idx.out).not.toContain('tier:');
    expect(idx.out).toContain('indexed: added=2 updated=0 skipped=0 removed=0 (2 files, 4 chunks)');
    expect((await fisk(['index'])).out).toContain('indexed: added=0 updated=0 skipped=2');

    // the text answer is the hits alone, a blank line between two
    const plain = await fisk(['search', 'backups', 'policy']);
    expect(plain.out).toMatch(/^docs\/\w+\.md#\d\n/);
    expect(plain.out).toMatch(/\n\ndocs\//);
    const none = await fisk(['search', 'zeppelin']);
    expect(none.code).toBe(EXIT.ok);
    expect(none.out).toBe('');
    expect(none.err).toContain('no results');

    const search = await fisk(['search', 'retention', '--json']);
    const doc = JSON.parse(search.out) as { tier: string; status: string; results: { citation: string; section: string }[] };
    expect(doc.status).toBe('ok');
    // the field is named tier: its value does not say it again
    expect(doc.tier).toBe('lexical (FTS5 BM25)');
    expect(doc.results[0]?.citation).toMatch(/^docs\/retention\.md#\d$/);

    const text = await fisk(['search', 'x', 'backups']);
    expect(text.err).toContain('dropped terms shorter than two characters: x');
    // "a" and "I" are prose, not terms: dropped without a note
    expect((await fisk(['search', 'how', 'do', 'I', 'keep', 'a', 'backup'])).err).not.toContain('dropped terms');

    // documents holding both words in different chunks are found; OR is refused by name
    const match = await fisk(['match', 'retention backups', '--json']);
    const mj = JSON.parse(match.out) as { total: number; documents: { path: string }[] };
    expect(mj.documents.map((d) => d.path)).toEqual(['docs/retention.md']);
    const neg = await fisk(['match', 'backups -retention']);
    expect(neg.out).toContain('docs/policy.md');
    expect(neg.out).not.toContain('docs/retention.md');
    const or = await fisk(['match', 'retention OR policy']);
    expect(or.code).toBe(EXIT.usage);
    expect(or.err).toContain('OR is not part of the enumeration language');
    expect((await fisk(['match', 'retent*'])).err).toContain('trailing *');
    expect((await fisk(['match', 'zebra', '--exit-code'])).code).toBe(EXIT.noMatch);
    expect((await fisk(['match', 'zebra'])).code).toBe(EXIT.ok);

    const show = await fisk(['show', 'docs/retention.md#1']);
    expect(show.out).toBe('# Retention > Exceptions\n\nLegal holds override retention.\n');
    expect((await fisk(['show', 'docs/retention.md'])).err).toContain("missing the '#<ordinal>' suffix");
    expect((await fisk(['show', 'docs/retention.md#x'])).err).toContain('malformed');
    expect((await fisk(['show', 'docs/retention.md#9'])).err).toContain('no chunk found');

    expect((await fisk(['sources'])).out).toMatch(/docs\/policy\.md\s+2/);
    const vocab = await fisk(['vocab', 'reten', '--json']);
    expect(JSON.parse(vocab.out)).toEqual([{ term: 'retention', chunks: 2, occurrences: 4 }]);

    const rm = await fisk(['rm', join(tmp.path, 'docs/policy.md'), './docs/nope.md']);
    expect(rm.out).toContain(`removed ${join(tmp.path, 'docs/policy.md')}\nnot indexed: ./docs/nope.md\nremoved 1 of 2 sources`);
    expect((await fisk(['match', 'policy'])).out).toContain('1 of 1 documents');

    const stats = await fisk(['stats']);
    expect(stats.out).toMatch(/Documents\s+1/);
  });

  it('checks, rebuilds and resets only with --force', async () => {
    await fisk(['index']);
    const chk = await fisk(['check']);
    expect(chk.code).toBe(EXIT.ok);
    expect(chk.out).toMatch(/chunks_fts\s+\[ ok \]/);
    expect(chk.out).toMatch(/chunks_vec\s+\[ -- \]/);
    // make the FTS drift from its content table behind the triggers' back
    const db = new Database(join(tmp.path, 'knowledge/docs/knowledge.db'));
    db.exec("DROP TRIGGER chunks_au; UPDATE chunks SET content = 'zebra crossing' WHERE ordinal = 0;");
    db.close();
    // the missing trigger is a foreign shape: the format gate refuses the file
    const gated = await fisk(['search', 'zebra']);
    expect(gated.err).toContain("does not have this build's shape");
    const noForce = await fisk(['reset']);
    expect(noForce.code).toBe(EXIT.error);
    expect(noForce.err).toContain('would delete 2 documents and 4 chunks');
    const reset = await fisk(['reset', '--force']);
    expect(reset.out).toContain('reset: removed 2 documents and 4 chunks');
    expect((await fisk(['index'])).out).toContain('added=2');
  });

  it('names a damaged index and how to build it again, and reset --force removes it', async () => {
    await fisk(['index']);
    const path = join(tmp.path, 'knowledge/docs/knowledge.db');
    // the first page past the file header holds the schema: filled with noise, SQLite cannot read the file
    scribble(path, 100, 3000, 0xa5);
    const fix = 'it is made from your files, so build it again: fisk knowledge reset --force, then fisk knowledge index';
    for (const verb of [['search', 'retention'], ['stats'], ['index', '--reindex']]) {
      const r = await fisk(verb);
      expect(r.code, verb.join(' ')).toBe(EXIT.error);
      expect(r.err).toContain(`the knowledge index ${path} is damaged (`);
      expect(r.err).toContain(fix);
    }
    const doctor = await fisk(['doctor']);
    expect(doctor.out).toMatch(/format\s+\[FAIL\]\s+the knowledge index .* is damaged/u);
    const noForce = await fisk(['reset']);
    expect(noForce.code).toBe(EXIT.error);
    expect(noForce.err).toContain(
      `knowledge reset would remove ${path}, which is damaged and cannot be read; re-run with --force to confirm`,
    );
    expect(existsSync(path)).toBe(true);
    const reset = await fisk(['reset', '--force']);
    expect(reset.code).toBe(EXIT.ok);
    expect(reset.out).toContain(`reset: removed ${path}, which was damaged; build it again with: fisk knowledge index`);
    expect(existsSync(path)).toBe(false);
    expect((await fisk(['index'])).out).toContain('added=2');
    expect((await fisk(['search', 'retention'])).out).toContain('docs/retention.md');
  });

  it('names a file that is not a database at all as a damaged index', async () => {
    await fisk(['index']);
    const path = join(tmp.path, 'knowledge/docs/knowledge.db');
    scribble(path, 0, 100, 0x5a);
    const r = await fisk(['search', 'retention']);
    expect(r.code).toBe(EXIT.error);
    expect(r.err).toContain(`the knowledge index ${path} is damaged (`);
    expect((await fisk(['reset', '--force'])).out).toContain('which was damaged');
  });

  it('detects drift with check and repairs it with rebuild', async () => {
    await fisk(['index']);
    const db = new Database(join(tmp.path, 'knowledge/docs/knowledge.db'));
    db.exec(`DROP TRIGGER chunks_au; UPDATE chunks SET content = 'zebra crossing' WHERE ordinal = 0;
CREATE TRIGGER chunks_au AFTER UPDATE ON chunks BEGIN SELECT 1; END;`);
    db.close();
    const chk = await fisk(['check']);
    expect(chk.code).toBe(EXIT.error);
    expect(chk.out).toMatch(/chunks_fts\s+\[FAIL\]/);
    expect((await fisk(['rebuild'])).code).toBe(EXIT.ok);
    expect((await fisk(['check'])).code).toBe(EXIT.ok);
    expect((await fisk(['match', 'zebra'])).out).toContain('2 of 2 documents');
  });

  it('refuses an index from a newer format and from an older one', async () => {
    await fisk(['index']);
    const path = join(tmp.path, 'knowledge/docs/knowledge.db');
    let db = new Database(path);
    db.exec(`UPDATE knowledge_meta SET value = '99' WHERE key = 'format_version'`);
    db.close();
    expect((await fisk(['search', 'x1'])).err).toContain('upgrade fisk-ai');
    db = new Database(path);
    db.exec(`DELETE FROM knowledge_meta`);
    db.close();
    expect((await fisk(['index'])).err).toContain('no pinned format version');
    db = new Database(path);
    db.exec(`INSERT INTO knowledge_meta VALUES ('format_version', '1')`);
    db.close();
    expect((await fisk(['stats'])).err).toContain("reset --force' and then 'fisk knowledge index'");
  });

  it('reports the doctor with unrun checks as not run', async () => {
    const r = await fisk(['doctor']);
    expect(r.code).toBe(EXIT.ok);
    expect(r.out).toMatch(/fts5\s+\[ ok \]/);
    expect(r.out).toMatch(/store\s+\[ -- \]\s+.*not built/);
    expect(r.out).toMatch(/embeddings\s+\[ -- \]/);
  });

  it('dry-runs without creating the store', async () => {
    const r = await fisk(['index', '--dry-run']);
    expect(r.out).toContain('would index: added=2');
    expect((await fisk(['stats'])).out).toContain('not built');
  });

  it('indexes only documentation text: no dotfiles, dot directories, other extensions or the memory directory', async () => {
    tmp.write('docs/.env', 'API_KEY=sk-secret-value\n');
    tmp.write('docs/.notes.md', '# Hidden\n\nsecretword in a dotfile\n');
    tmp.write('docs/.git/HEAD.md', '# Head\n\nsecretword in a dot directory\n');
    tmp.write('docs/agent.yaml', 'identity: secretword\n');
    tmp.write('docs/settings.json', '{"secretword": true}\n');
    tmp.write('docs/guide.markdown', '# Guide\n\nThe guide explains onboarding.\n');
    tmp.write('docs/readme.TXT', 'Plain text about onboarding.\n');
    tmp.write('docs/notes.text', 'More text about onboarding.\n');
    tmp.write('agent.yaml', `${CONFIG}  memory:\n    enabled: true\n    backend: file\n    options: {directory: docs/mem}\n`);
    tmp.write('docs/mem/secret.md', '# Remembered\n\nsecretword remembered by the agent\n');
    const idx = await fisk(['index']);
    expect(idx.code).toBe(EXIT.ok);
    expect(idx.out).toContain('(5 files,');
    expect((await fisk(['match', 'secretword'])).out).toContain('0 of 5 documents');
    expect((await fisk(['match', 'onboarding'])).out).toContain('3 of 5 documents');
    // a file named on the command line is held to the same rules, and says why it was left out
    const named = await fisk(['index', 'docs/agent.yaml', 'docs/.env']);
    expect(named.err).toContain('skipped docs/agent.yaml: not a documentation file (see harness.knowledge.extensions)');
    expect(named.err).toContain('skipped docs/.env: not a documentation file');

    // the extensions are configurable
    tmp.write('docs/manual.rst', 'Restructured onboarding text.\n');
    tmp.write('agent.yaml', `${CONFIG}    extensions: [rst, .MD]\n`);
    const re = await fisk(['index']);
    expect(re.out).toContain('removed=3');
    const sources = (await fisk(['sources'])).out;
    expect(sources).toContain('docs/manual.rst');
    expect(sources).not.toContain('docs/guide.markdown');
  });

  it('never indexes the session journals the file backend keeps under a knowledge path', async () => {
    tmp.write('agent.yaml', `${CONFIG}  sessions:\n    backend: file\n    options: {directory: docs/runs}\n`);
    tmp.write('docs/runs/run-1.md', '# Journal\n\nsecretword journaled by a run\n');
    const idx = await fisk(['index']);
    expect(idx.code).toBe(EXIT.ok);
    expect(idx.out).toContain('(2 files,');
    expect((await fisk(['match', 'secretword'])).out).toContain('0 of 2 documents');
  });

  it('reports a file whose name is not UTF-8 as such, not as unreadable', async () => {
    const name = Buffer.concat([Buffer.from(join(tmp.path, 'docs/caf')), Buffer.from([0xe9]), Buffer.from('.md')]);
    writeFileSync(name, '# Cafe\n\nLatin-1 named.\n');
    const idx = await fisk(['index']);
    expect(idx.code).toBe(EXIT.ok);
    expect(idx.err).toContain('skipped docs/caf\\xe9.md: its file name is not UTF-8');
    expect(idx.err).not.toContain('unreadable');
    expect(idx.out).toContain('(2 files,');
  });

  it('shows store sizes in units a person reads', async () => {
    await fisk(['index']);
    const stats = await fisk(['stats']);
    expect(stats.out).toMatch(/DB size\s+\d+(\.\d)? KiB \(\d+ bytes\)/);
    expect(stats.out).toMatch(/WAL size\s+(\d+ B|\d+(\.\d)? [KMG]iB \(\d+ bytes\))\n/);
  });

  it('refuses to watch when no path exists, naming the configured paths', async () => {
    tmp.write('agent.yaml', CONFIG.replace('paths: [docs]', 'paths: [docs/gone, handbook]'));
    const r = await fisk(['watch']);
    expect(r.code).toBe(EXIT.error);
    expect(r.err).toContain('none of the paths from harness.knowledge.paths');
    expect(r.err).toContain('"docs/gone", "handbook"');
    const named = await fisk(['watch', 'nowhere']);
    expect(named.code).toBe(EXIT.error);
    expect(named.err).toContain('"nowhere"');
  });

  it('needs a path when none is configured', async () => {
    tmp.write('agent.yaml', 'identity: docs\nharness:\n  knowledge:\n    enabled: true\n');
    const r = await fisk(['index']);
    expect(r.code).toBe(EXIT.usage);
    expect(r.err).toContain('harness.knowledge.paths');
  });
});

describe('fisk knowledge eval', () => {
  const QUESTIONS = [
    '# questions a reader would ask, and the documents that answer them',
    'How long are backups kept?\tdocs/retention.md',
    '',
    'Are the backups encrypted?\tdocs/policy.md',
    'How often is a policy reviewed?\tdocs/retention.md|docs/policy.md',
    'Who holds the legal exceptions?\tdocs/nowhere.md',
    '',
  ].join('\n');

  it('scores where the first right document lands, and names an answer the index does not hold', async () => {
    tmp.write('questions.tsv', QUESTIONS);
    expect((await fisk(['index'])).code).toBe(EXIT.ok);
    const result = await fisk(['eval', 'questions.tsv']);
    expect(result.code).toBe(EXIT.ok);
    const lines = result.out.trimEnd().split('\n');
    expect(result.err.split('\n')[0]).toBe('tier: lexical (FTS5 BM25)');
    expect(lines[0]).toBe('  1  How long are backups kept?  -> docs/retention.md');
    expect(lines[2]).toBe('  1  How often is a policy reviewed?  -> docs/policy.md');
    expect(lines[3]).toMatch(
      /^ {2}- {2}Who holds the legal exceptions\? {2}-> docs\/retention\.md \(expected docs\/nowhere\.md, not in the first 10\)$/,
    );
    expect(lines.at(-1)).toBe('4 questions: recall@1 0.750 (3), recall@5 0.750 (3), MRR 0.750');
    expect(result.err).toContain("this answer names no indexed document (see 'fisk knowledge sources'): docs/nowhere.md");

    const misses = await fisk(['eval', 'questions.tsv', '--misses-only']);
    expect(misses.out.split('\n').filter((l) => l.includes('->'))).toHaveLength(1);

    const j = JSON.parse((await fisk(['eval', 'questions.tsv', '--json', '--depth', '5'])).out) as {
      depth: number;
      recall_at_1: number;
      unknown_answers: string[];
      outcomes: { line: number; rank: number; first: string[] }[];
    };
    expect(j.depth).toBe(5);
    expect(j.recall_at_1).toBe(0.75);
    expect(j.unknown_answers).toEqual(['docs/nowhere.md']);
    expect(j.outcomes.map((o) => [o.line, o.rank])).toEqual([
      [2, 1],
      [4, 1],
      [5, 1],
      [6, 0],
    ]);
  });

  it('refuses a missing or malformed questions file and a bad depth, naming what to change', async () => {
    await fisk(['index']);
    const missing = await fisk(['eval', 'nope.tsv']);
    expect(missing.code).toBe(EXIT.usage);
    expect(missing.err).toContain('cannot read the questions file "nope.tsv": it does not exist');
    expect((await fisk(['eval', 'docs'])).err).toContain('cannot read the questions file "docs": it is a directory');
    tmp.write('bad.tsv', 'How long are backups kept?\tdocs/retention.md\nno tab on this line\n');
    const bad = await fisk(['eval', 'bad.tsv']);
    expect(bad.code).toBe(EXIT.usage);
    expect(bad.err).toContain('bad.tsv:2: expected a question, a tab, then the answering paths separated by "|"');
    tmp.write('empty.tsv', '# nothing yet\n\n');
    expect((await fisk(['eval', 'empty.tsv'])).err).toContain('empty.tsv holds no question');
    tmp.write('questions.tsv', QUESTIONS);
    const depth = await fisk(['eval', 'questions.tsv', '--depth', '3']);
    expect(depth.code).toBe(EXIT.usage);
    expect(depth.err).toContain('--depth must be a whole number from 5 to 50, got "3"');
  });

  it('says "not built" before the first index', async () => {
    tmp.write('questions.tsv', QUESTIONS);
    const r = await fisk(['eval', 'questions.tsv']);
    expect(r.code).toBe(EXIT.error);
    expect(r.err).toContain('has not been built yet');
  });
});

describe('fisk knowledge with embeddings', () => {
  let fake: FakeEmbeddings;
  beforeEach(async () => {
    fake = await startFakeEmbeddings(16);
    tmp.write(
      'agent.yaml',
      `${CONFIG}    embeddings:\n      base_url: ${fake.baseUrl}\n      model: toy\n      timeout: 2s\n      api_key_env: TOY_KEY\n      query_prefix: 'query: '\n`,
    );
  });
  afterEach(async () => fake.close());

  it('indexes with vectors, searches hybrid, and degrades naming the failing step', async () => {
    const env = { TOY_KEY: 'sekrit' };
    const idx = await fisk(['index'], env);
    expect(idx.code).toBe(EXIT.ok);
    expect(idx.err).toContain('first full build: about to embed 4 chunks across 2 files');
    expect(idx.out).toContain('4 embeddings');
    expect(fake.requests[0]?.auth).toBe('Bearer sekrit');
    const s = await fisk(['search', 'legal holds'], env);
    expect(s.err).toContain('tier: hybrid (FTS5 + vectors, RRF) - model=toy dimension=16');
    expect(fake.requests.at(-1)?.input).toEqual(['query: legal holds']);
    fake.behaviour = () => 'error_500';
    const d = await fisk(['search', 'legal holds', '--json'], env);
    const dj = JSON.parse(d.out) as { tier: string; status: string };
    expect(dj.tier).toContain('degraded from hybrid: embedding the query failed');
    expect(dj.status).toBe('ok');
    // the stats show the pinned identity
    expect((await fisk(['stats'], env)).out).toMatch(/Dimension\s+16/);
    // an evaluation searches the way the tool does: hybrid when vectors are configured
    fake.behaviour = () => 'ok';
    tmp.write('questions.tsv', 'Who overrides retention?\tdocs/retention.md\n');
    const ev = await fisk(['eval', 'questions.tsv'], env);
    expect(ev.err.split('\n')[0]).toBe('tier: hybrid (FTS5 + vectors, RRF) - model=toy dimension=16');
    expect(ev.out).toContain('1 question: recall@1 1.000 (1)');
  });

  it('refuses an unset api_key_env variable, naming it', async () => {
    const r = await fisk(['index']);
    expect(r.code).toBe(EXIT.config);
    expect(r.err).toContain('TOY_KEY');
  });

  it('leaves the index whole when the server is down for a reindex, and refuses a changed model', async () => {
    const env = { TOY_KEY: 'k' };
    await fisk(['index'], env);
    fake.behaviour = () => 'error_500';
    const re = await fisk(['index', '--reindex'], env);
    expect(re.code).toBe(EXIT.error);
    fake.behaviour = () => 'ok';
    expect((await fisk(['search', 'legal holds'], env)).err).toContain('tier: hybrid');
    fake.dimension = 8;
    const dim = await fisk(['search', 'legal holds'], env);
    expect(dim.err).toContain('dimension 8');
    const doctor = await fisk(['doctor'], env);
    expect(doctor.out).toMatch(/vector identity\s+\[FAIL\]/);
    tmp.write('agent.yaml', `${CONFIG}    embeddings:\n      base_url: ${fake.baseUrl}\n      model: other\n`);
    expect((await fisk(['search', 'x1'])).err).toContain('different model');
    expect((await fisk(['index'])).err).toContain('--reindex');
    const ok = await fisk(['index', '--reindex']);
    expect(ok.err).toContain('model=other dimension=8');
  });
});
