import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeEmbeddings, tempDir } from '../../test/knowledge/support.js';
import type { FakeEmbeddings, TempDir } from '../../test/knowledge/support.js';
import { EmbeddingsClient } from './embeddings.js';
import { indexCorpus } from './indexer.js';
import { KnowledgeReader, openWriter } from './store.js';
import type { DegradeStep } from './tier.js';
import { knowledgeTools } from './tools.js';

let tmp: TempDir;
let fake: FakeEmbeddings;
const settings = { model: 'toy', queryPrefix: '', documentPrefix: '' };
const vector = (timeoutMs = 5000) => ({ client: new EmbeddingsClient({ baseUrl: fake.baseUrl, model: 'toy', timeoutMs }), settings });
const store = (): string => join(tmp.path, 'store');

beforeAll(async () => {
  tmp = tempDir();
  fake = await startFakeEmbeddings(12);
  tmp.write('docs/special.md', '# Special\n\nthe zebra crossing\n');
  const w = openWriter(store());
  await indexCorpus(w.db, { roots: ['docs'], cwd: tmp.path, excludeDirs: [], vector: vector() });
  w.close();
});
afterAll(async () => {
  await fake.close();
  tmp.cleanup();
});

describe('knowledge search reports a fallback to lexical', () => {
  it('tells onDegraded the step that failed, and nothing for a hybrid answer', async () => {
    const reader = new KnowledgeReader(store());
    const steps: DegradeStep[] = [];
    const search = knowledgeTools({
      reader,
      vector: vector(100),
      topK: 3,
      maxInjectedTokens: 6000,
      expandToSection: false,
      readTool: false,
      citations: [],
      onDegraded: (s) => steps.push(s),
    }).find((t) => t.name === 'knowledge_search');
    if (search === undefined) throw new Error('no knowledge_search');
    await search.execute(JSON.stringify({ query: 'zebra' }), {}, new AbortController().signal);
    expect(steps).toEqual([]);
    fake.behaviour = () => 'hang';
    const outcome = await search.execute(JSON.stringify({ query: 'zebra' }), {}, new AbortController().signal);
    fake.behaviour = () => 'ok';
    expect(outcome.status === 'completed' ? outcome.output : '').toContain('zebra');
    expect(steps).toEqual(['embed_query']);
    reader.close();
  });
});
