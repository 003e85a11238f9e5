import { symlinkSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfigForMode } from '../../src/config/index.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import { runCli } from '../../src/cli/program.js';
import { captureIo } from '../../src/cli/test-io.js';
import { prepareRunKnowledge } from '../../src/knowledge/index.js';
import { tempDir } from './support.js';
import type { TempDir } from './support.js';

let tmp: TempDir;

const config = (extra = '') =>
  parseConfigForMode(
    { text: `identity: docs\nharness:\n  knowledge:\n    enabled: true\n    paths: [docs]\n${extra}`, name: 'agent.yaml' },
    'info',
  ).harness.knowledge;

beforeEach(() => {
  tmp = tempDir();
  tmp.write('agent.yaml', 'identity: docs\nharness:\n  knowledge:\n    enabled: true\n    paths: [docs]\n');
  tmp.write('docs/retention.md', '# Retention\n\nThe retention policy keeps backups for thirty days.\n');
});
afterEach(() => tmp.cleanup());

describe('prepareRunKnowledge', () => {
  it('gives nothing when knowledge is off', () => {
    const off = parseConfigForMode({ text: 'identity: a\n' }, 'info').harness.knowledge;
    expect(prepareRunKnowledge(off, { cwd: tmp.path, env: {} })).toBeUndefined();
  });

  it('builds the tools and the note, and searches a built index', async () => {
    const io = captureIo({}, tmp.path);
    expect(await runCli(['knowledge', 'index'], io)).toBe(EXIT.ok);
    const run = prepareRunKnowledge(config('    read_tool: true\n'), { cwd: tmp.path, env: {} });
    if (run === undefined) throw new Error('expected knowledge');
    try {
      expect(run.tools.map((t) => t.name)).toEqual(['knowledge_search', 'knowledge_enumerate', 'knowledge_read']);
      expect(run.notes.join('\n')).toMatch(/knowledge_read/);
      const search = run.tools[0];
      if (search === undefined) throw new Error('expected a search tool');
      const outcome = await search.execute('{"query":"retention backups"}', {}, new AbortController().signal);
      expect(outcome.status).toBe('completed');
      if (outcome.status === 'completed') expect(outcome.output).toContain('docs/retention.md#0');
    } finally {
      run.reader.close();
    }
  });

  it('answers honestly over an index that was never built', async () => {
    const run = prepareRunKnowledge(config(), { cwd: tmp.path, env: {} });
    if (run === undefined) throw new Error('expected knowledge');
    expect(run.tools.map((t) => t.name)).toEqual(['knowledge_search', 'knowledge_enumerate']);
    const search = run.tools[0];
    if (search === undefined) throw new Error('expected a search tool');
    const outcome = await search.execute('{"query":"retention"}', {}, new AbortController().signal);
    expect(outcome.status === 'completed' ? outcome.output : '').toMatch(/not_built|not been built/);
  });

  it('refuses a store whose database is a symlink before any model call', () => {
    mkdirSync(join(tmp.path, 'knowledge', 'docs'), { recursive: true, mode: 0o700 });
    symlinkSync('/etc/hostname', join(tmp.path, 'knowledge', 'docs', 'knowledge.db'));
    expect(() => prepareRunKnowledge(config(), { cwd: tmp.path, env: {} })).toThrow(/symlink|symbolic link/i);
  });

  it('refuses an embeddings key variable that is not set', () => {
    const withEmbeddings = config('    embeddings: {base_url: "http://127.0.0.1:9", model: e, api_key_env: NOT_SET_ANYWHERE}\n');
    expect(() => prepareRunKnowledge(withEmbeddings, { cwd: tmp.path, env: {} })).toThrow(/NOT_SET_ANYWHERE/);
  });
});
