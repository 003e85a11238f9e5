/**
 * The examples under examples/ as a person runs them: the built `fisk`, started in the example's
 * own directory (not the repository root), against the fake Messages API, with no terminal.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anthropicText, anthropicToolUse } from '../../src/agenttest/anthropic-wire.js';
import { startFakeModelServer } from '../../src/agenttest/fake-model-server.js';
import type { FakeModelServer } from '../../src/agenttest/fake-model-server.js';
import { ensureBuilt, ROOT, runFisk } from '../cli/support.js';

let fake: FakeModelServer;
let storeBase: string;
beforeAll(async () => {
  ensureBuilt();
  fake = await startFakeModelServer();
  storeBase = mkdtempSync(join(tmpdir(), 'fisk-examples-'));
}, 240_000);
afterAll(async () => {
  await fake.close();
  rmSync(storeBase, { recursive: true, force: true });
});
beforeEach(() => fake.reset());

interface WireToolResult {
  readonly type: string;
  readonly content?: unknown;
}

/** The tool results the run sent back in request `index`. */
function toolResults(index: number): string[] {
  const body = fake.requests[index]?.body as { messages: { role: string; content: WireToolResult[] | string }[] };
  const last = body.messages.at(-1);
  if (last === undefined || typeof last.content === 'string') return [];
  return last.content.filter((b) => b.type === 'tool_result').map((b) => JSON.stringify(b.content));
}

function toolNames(index: number): string[] {
  const body = fake.requests[index]?.body as { tools?: { name: string }[] };
  return (body.tools ?? []).map((t) => t.name);
}

describe('examples/shop: an application written with @fisk-ai/app', () => {
  const dir = join(ROOT, 'examples/shop');

  it('shows the model stock and order but never reset, and refuses the gated order without a terminal', async () => {
    fake.reply(
      anthropicToolUse([{ id: 'toolu_1', name: 'stock', input: {} }]),
      anthropicToolUse([{ id: 'toolu_2', name: 'order', input: { item: 'pears', quantity: 20 } }]),
      anthropicText('Pears are out of stock; the order for 20 was not approved.'),
    );
    const r = await runFisk(
      ['run', '--config', 'agent.yaml', '--base-url', fake.url, '--api-key', 'k', 'Which items are out of stock? Order 20 of each.'],
      dir,
    );
    expect(r.stderr).not.toMatch(/error/i);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Pears are out of stock; the order for 20 was not approved.\n');
    expect(toolNames(0).sort()).toEqual(['order', 'stock']);
    expect(toolResults(1)[0]).toMatch(/pears\\+t0/);
    expect(toolResults(2)[0]).toMatch(/allowed\\+":false/);
  });

  it('works the same sandboxed: the shop runs inside bubblewrap and answers', async () => {
    const boxed = join(storeBase, 'shop-sandboxed');
    mkdirSync(boxed, { recursive: true });
    writeFileSync(
      join(boxed, 'agent.yaml'),
      `${readFileSync(join(dir, 'agent.yaml'), 'utf8').replace('./shop.mjs', join(dir, 'shop.mjs'))}harness:\n  sandbox:\n    enabled: true\n`,
    );
    fake.reply(anthropicToolUse([{ id: 'toolu_1', name: 'stock', input: {} }]), anthropicText('Pears are out of stock.'));
    const r = await runFisk(
      ['run', '--config', 'agent.yaml', '--base-url', fake.url, '--api-key', 'k', 'Which items are out of stock?'],
      boxed,
    );
    expect(r.stderr).not.toMatch(/error/i);
    expect(r.code).toBe(0);
    expect(toolResults(1)[0]).toMatch(/pears\\+t0/);
    const info = await runFisk(['info', '--config', 'agent.yaml'], boxed);
    expect(info.stdout).toMatch(/stock\s+application\s+no\s+no\s+on \(no network; writes <work directory>\)/);
  });

  it('lists the tools with fisk info', async () => {
    const r = await runFisk(['info', '--config', 'agent.yaml', '--all'], dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/order\s+application\s+yes \(ai:confirm\)/);
    expect(r.stdout).toMatch(/reset/);
  });

  it('copied out of the checkout without its packages, stops naming the package it could not find', async () => {
    const copy = join(storeBase, 'shop-copy');
    cpSync(dir, copy, { recursive: true });
    const r = await runFisk(['info', '--config', 'agent.yaml'], copy);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(
      /cannot introspect application_path .*shop\.mjs.*: it exited with status 1: Error \[ERR_MODULE_NOT_FOUND\]: Cannot find package '(?:commander|@fisk-ai\/app)'/,
    );
    expect(r.stderr).not.toMatch(/Node\.js v\d/);
  });
});

describe("examples/docs-assistant: this project's docs with citations", () => {
  const dir = join(ROOT, 'examples/docs-assistant');
  // read when the test runs: the store base is made in beforeAll
  const env = (): Record<string, string> => ({ FISK_AI_STORE_DIR: storeBase });

  it('indexes docs/ and answers from a search whose results carry citations', async () => {
    // a person who followed examples/README.md has an index of their own in the checkout: the
    // test's index goes under the store base and leaves that one as it was
    const checkoutIndex = join(dir, 'knowledge');
    const hadIndex = existsSync(checkoutIndex);
    const index = await runFisk(['knowledge', 'index', '--config', 'agent.yaml'], dir, env());
    expect(index.code).toBe(0);
    expect(index.stdout).toMatch(/indexed: added=\d+/);

    fake.reply(
      anthropicToolUse([{ id: 'toolu_1', name: 'knowledge_search', input: { query: 'approve a gated command' } }]),
      anthropicText('Answer 1, 2 or 3 at the prompt (docs/running.md#approving-gated-commands).'),
    );
    const result = await runFisk(
      ['run', '--config', 'agent.yaml', '--base-url', fake.url, '--api-key', 'k', 'How do I approve a gated command?'],
      dir,
      env(),
    );
    expect(result.stderr).not.toMatch(/error/i);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('docs/running.md');
    expect(toolNames(0)).toContain('knowledge_search');
    expect(toolResults(1)[0]).toMatch(/docs\/running\.md#[a-z-]+/);
    expect(existsSync(join(storeBase, 'knowledge'))).toBe(true);
    expect(existsSync(checkoutIndex)).toBe(hadIndex);

    // the example's questions: every one finds its page among the first ten
    const evaluated = await runFisk(['knowledge', 'eval', 'questions.tsv', '--config', 'agent.yaml'], dir, env());
    expect(evaluated.code, evaluated.stderr).toBe(0);
    expect(evaluated.stdout).toMatch(/\n13 questions: recall@1 [01]\.\d{3} \(\d+\), recall@5 [01]\.\d{3} \(\d+\), MRR [01]\.\d{3}\n$/);
    expect(evaluated.stdout.split('\n').filter((l) => l.startsWith('  -  '))).toEqual([]);
    expect(evaluated.stderr).toBe('tier: lexical (FTS5 BM25)\n');
  });
});
