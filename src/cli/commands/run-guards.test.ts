/**
 * `fisk run` as a person meets it, against the fake Anthropic server: a refusal is a failure, and
 * the PII guard covers everything a resume sends.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { anthropicMessage, anthropicText, anthropicToolUse } from '../../agenttest/anthropic-wire.js';
import { startFakeModelServer } from '../../agenttest/fake-model-server.js';
import type { FakeModelServer } from '../../agenttest/fake-model-server.js';
import { loadRun, openSessionStore } from '../../runstate/index.js';
import { EXIT } from '../exit-codes.js';
import { runCli } from '../program.js';
import { captureIo } from '../test-io.js';

const FIXTURE = resolve(import.meta.dirname, '../../../test/fixtures/fisk-app.mjs');
const EMAIL = 'jane.doe@example.com';

let dir: string;
let fake: FakeModelServer;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fisk-run-guards-'));
  fake = await startFakeModelServer();
});
afterEach(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

function agent(extra = '', harness = ''): string {
  const path = join(dir, 'agent.yaml');
  writeFileSync(
    path,
    `identity: runner\napplication_path: ${FIXTURE}\nsystem_prompt: You run things.\nllm:\n  model: claude-fake-1\n${extra}${harness === '' ? '' : `harness:\n${harness}`}`,
  );
  return path;
}

async function run(config: string, args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = captureIo({ PATH: process.env['PATH'] }, dir);
  const code = await runCli(
    ['run', '--config', config, '--base-url', fake.url, '--api-key', 'sk-test', '--state-dir', join(dir, 'runs'), ...args],
    io,
  );
  return { code, out: io.stdout(), err: io.stderr() };
}

async function stored(id: string): Promise<Awaited<ReturnType<typeof loadRun>>> {
  const store = await openSessionStore({ backend: 'file', options: '{}' }, { env: {}, cwd: dir, stateDir: join(dir, 'runs') });
  return loadRun(store, id);
}

/** Every journal line written under the state directory. */
function journalText(): string {
  const all: string[] = [];
  const walk = (p: string): void => {
    if (statSync(p).isDirectory()) for (const f of readdirSync(p)) walk(join(p, f));
    else all.push(readFileSync(p, 'utf8'));
  };
  walk(join(dir, 'runs'));
  return all.join('\n');
}

describe('a model refusal', () => {
  it('ends the run as a failure with exit 1, printing no answer, journaled as an error', async () => {
    fake.reply(anthropicMessage([{ type: 'text', text: 'I cannot help with that.', citations: [] }], { stop_reason: 'refusal' }));
    const r = await run(agent(), ['--checkpoint', '--name', 'refused', 'do something bad']);
    expect(r.code).toBe(EXIT.error);
    expect(r.out).toBe('');
    expect(r.err).toContain('the model refused to respond: I cannot help with that.');
    const s = await stored('refused');
    expect(s.status).toBe('error');
    expect(s.terminal?.message).toContain('the model refused to respond');
    expect(journalText()).toMatch(/"stop_reason":\s*"refusal"/);
  });

  it('fails the same way when the refusal carries no text', async () => {
    fake.reply(anthropicMessage([], { stop_reason: 'refusal' }));
    const r = await run(agent(), ['go']);
    expect(r.code).toBe(EXIT.error);
    expect(r.out).toBe('');
    expect(r.err).toContain('the model refused to respond');
  });
});

describe('the PII guard on resume', () => {
  const sent = (): string => fake.requests.map((q) => JSON.stringify(q.body)).join('\n');

  it('reject: a checkpointed run with PII in the prompt stores nothing, and no resume sends it', async () => {
    const config = agent('', '  pii: { mode: reject }\n');
    const first = await run(config, ['--checkpoint', '--name', 'secret', `mail ${EMAIL}`]);
    expect(first.code).not.toBe(EXIT.ok);
    const again = await run(config, ['--resume', 'secret']);
    expect(again.code).not.toBe(EXIT.ok);
    expect(fake.requests).toHaveLength(0);
  });

  it('reject: a journal written without the guard is not resumed under reject, and nothing is sent', async () => {
    fake.reply(anthropicToolUse([{ id: 'toolu_1', name: 'stream_ls', input: {} }]));
    const open = await run(agent('  budget: { max_iterations: 1 }\n', '  pii: { mode: off }\n'), [
      '--checkpoint',
      '--name',
      'old',
      `mail ${EMAIL}`,
    ]);
    expect(open.code).toBe(EXIT.maxIterations);
    expect(fake.requests).toHaveLength(1);
    const before = fake.requests.length;
    const r = await run(agent('  budget: { max_iterations: 1 }\n', '  pii: { mode: reject }\n'), ['--resume', 'old']);
    expect(r.code).not.toBe(EXIT.ok);
    expect(r.err).toContain('harness.pii.mode');
    expect(fake.requests).toHaveLength(before);
    // the claim was released: the run is still resumable once the mode allows it
    fake.reply(anthropicText('done'));
    const redacted = await run(agent('  budget: { max_iterations: 3 }\n', '  pii: { mode: redact }\n'), ['--resume', 'old', '--force']);
    expect(redacted.code).toBe(EXIT.ok);
    expect(JSON.stringify(fake.requests.at(-1)?.body)).not.toContain(EMAIL);
  });

  it('redact: a suspended run resumes sending only the redacted prompt', async () => {
    const config = agent('  budget: { max_iterations: 1 }\n', '  pii: { mode: redact }\n');
    fake.reply(anthropicToolUse([{ id: 'toolu_1', name: 'stream_ls', input: {} }]));
    const first = await run(config, ['--checkpoint', '--name', 'red', `mail ${EMAIL}`]);
    expect(first.code).toBe(EXIT.maxIterations);
    fake.reply(anthropicText('done'));
    const resumed = await run(agent('  budget: { max_iterations: 3 }\n', '  pii: { mode: redact }\n'), ['--resume', 'red', '--force']);
    expect(resumed.code).toBe(EXIT.ok);
    expect(fake.requests).toHaveLength(2);
    expect(sent()).toContain('mail ');
    expect(sent()).not.toContain(EMAIL);
    expect(journalText()).not.toContain(EMAIL);
  });

  it('redact: a journal written without the guard is redacted before the resumed model call', async () => {
    fake.reply(anthropicToolUse([{ id: 'toolu_1', name: 'stream_ls', input: {} }]));
    const first = await run(agent('  budget: { max_iterations: 1 }\n', '  pii: { mode: off }\n'), [
      '--checkpoint',
      '--name',
      'plain',
      `mail ${EMAIL}`,
    ]);
    expect(first.code).toBe(EXIT.maxIterations);
    fake.reply(anthropicText('done'));
    const resumed = await run(agent('  budget: { max_iterations: 3 }\n', '  pii: { mode: redact }\n'), ['--resume', 'plain', '--force']);
    expect(resumed.code).toBe(EXIT.ok);
    expect(resumed.err).toContain('resumed conversation');
    expect(JSON.stringify(fake.requests[1]?.body)).not.toContain(EMAIL);
    expect(JSON.stringify(fake.requests[1]?.body)).toContain('mail ');
  });
});

describe('the memory tools as the model meets them', () => {
  it('reports a missing key honestly: an overwrite creates, a read miss points at memory_list, neither is an error', async () => {
    fake.reply(
      anthropicToolUse([
        { id: 'toolu_w', name: 'memory_write', input: { key: 'fresh', description: 'a new note', content: 'one', overwrite: true } },
        { id: 'toolu_r', name: 'memory_read', input: { key: 'absent' } },
        { id: 'toolu_x', name: 'memory_write', input: { key: 'fresh', description: 'again', content: 'two' } },
      ]),
      anthropicText('noted'),
    );
    const r = await run(agent('', '  memory: { enabled: true }\n'), ['remember']);
    expect(r.code).toBe(EXIT.ok);
    const second = fake.requests[1]?.body as { messages: { content: unknown }[] };
    const results = second.messages
      .flatMap((m) => (Array.isArray(m.content) ? (m.content as Record<string, unknown>[]) : []))
      .filter((b) => b['type'] === 'tool_result');
    const byId = new Map(results.map((b) => [b['tool_use_id'], b]));
    const text = (id: string): string => JSON.stringify(byId.get(id)?.['content']);
    expect(text('toolu_w')).toContain('\\"replaced\\":false');
    expect(text('toolu_r')).toContain('memory_list');
    expect(text('toolu_x')).toContain('already exists');
    for (const id of ['toolu_w', 'toolu_r', 'toolu_x']) expect(byId.get(id)?.['is_error'] ?? false).toBe(false);
  });
});
