/** `echo question | fisk run` through the built CLI, with a real standard input pipe. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anthropicText, anthropicToolUse } from '../../src/agenttest/anthropic-wire.js';
import { startFakeModelServer } from '../../src/agenttest/fake-model-server.js';
import type { FakeModelServer } from '../../src/agenttest/fake-model-server.js';
import { ensureBuilt, ROOT, runFisk } from './support.js';

let fake: FakeModelServer;
let dir: string;
beforeAll(async () => {
  ensureBuilt();
  fake = await startFakeModelServer();
  dir = mkdtempSync(join(tmpdir(), 'fisk-piped-'));
  writeFileSync(
    join(dir, 'agent.yaml'),
    `identity: piped\nsystem_prompt: You run things.\napplication_path: ${join(ROOT, 'test/fixtures/fisk-app.mjs')}\nllm:\n  model: claude-fake-1\n`,
  );
}, 180_000);
afterAll(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => fake.reset());

const args = (): string[] => ['run', '--base-url', fake.url, '--api-key', 'k'];
const firstMessages = (): string => JSON.stringify((fake.requests[0]?.body as { messages: unknown }).messages);

describe('fisk run with a piped prompt', () => {
  it('reads standard input to its end as the prompt; gated calls are declined and said to be', async () => {
    fake.reply(
      anthropicToolUse([{ id: 'toolu_1', name: 'stream_purge', input: { stream: 'orders' } }]),
      anthropicText('declined, as expected'),
    );
    const r = await runFisk(args(), dir, {}, 'purge the\nORDERS stream\n');
    expect(r.code).toBe(0);
    expect(firstMessages()).toContain('purge the\\nORDERS stream');
    expect(r.stdout).toBe('declined, as expected\n');
    expect(r.stderr).toMatch(/warning: \d+ tools? needs? approval and there is no interactive terminal/);
    expect(r.stderr).toMatch(/<- refused: /);
  });

  it('falls back to the default prompt when standard input is empty', async () => {
    fake.reply(anthropicText('hello'));
    const r = await runFisk(args(), dir, {}, '');
    expect(r.code).toBe(0);
    expect(firstMessages()).toContain('assist the user');
  });
});
