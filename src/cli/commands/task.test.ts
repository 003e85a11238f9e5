import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fileTaskStore, pendingTask } from '../../tasks/index.js';
import { EXIT } from '../exit-codes.js';
import { runCli } from '../program.js';
import { captureIo } from '../test-io.js';

const dir = mkdtempSync(join(tmpdir(), 'fisk-task-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = { HOME: dir, XDG_STATE_HOME: join(dir, 'state'), XDG_CONFIG_HOME: join(dir, 'config') };
writeFileSync(join(dir, 'agent.yaml'), 'identity: t\nsystem_prompt: p\nllm: {model: m}\n');
writeFileSync(join(dir, 'queue.yaml'), 'identity: t\nsystem_prompt: p\nllm: {model: m}\nexpose: {agent: {jobs: {stream: Q}}}\n');

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = captureIo(env, dir);
  const code = await runCli(['task', ...argv], io);
  return { code, out: io.stdout(), err: io.stderr() };
}

describe('fisk task', () => {
  it('lists and shows the tasks of the file store under --state-dir', async () => {
    expect(await cli('ls', '--state-dir', 'st')).toMatchObject({ code: EXIT.ok, out: '', err: 'No tasks\n' });
    const store = fileTaskStore(join(dir, 'st', 'tasks'));
    await store.ask(pendingTask('weekly', 'job-1', 'write the \u001b[31mreport', new Date('2026-01-02T03:04:05Z')));
    await store.complete('weekly', { state: 'completed', answer: 'all good' });
    const listed = await cli('ls', '--state-dir', 'st');
    expect(listed.code).toBe(EXIT.ok);
    expect(listed.out.split('\n')[1]).toMatch(/^weekly +completed +2026-01-02 03:04:05Z +write the (\[31m)?report$/u);
    const shown = await cli('show', '--state-dir', 'st', 'weekly');
    expect(shown.out).toContain('State:    completed');
    expect(shown.out).toContain('Answer:\nall good');
    expect(shown.out).not.toContain('\u001b');
  });

  it('fails clearly on an unknown or malformed task id', async () => {
    expect(await cli('show', 'nobody')).toMatchObject({ code: EXIT.error, err: expect.stringMatching(/no task "nobody" in /u) as unknown });
    expect(await cli('show', '../x')).toMatchObject({ code: EXIT.usage, err: expect.stringMatching(/invalid task id/u) as unknown });
  });

  it('refuses bad submit flags before reading anything', async () => {
    expect((await cli('submit', '--max-tokens', '0', 'x')).code).toBe(EXIT.usage);
    expect((await cli('submit', '--max-iterations', 'two', 'x')).code).toBe(EXIT.usage);
    expect(await cli('submit', '--timeout', '5s', 'x')).toMatchObject({ code: EXIT.usage, err: expect.stringMatching(/--timeout applies only with --wait/u) as unknown });
    expect(await cli('submit', '--wait', '--timeout', 'soon', 'x')).toMatchObject({ code: EXIT.usage, err: expect.stringMatching(/not a duration/u) as unknown });
    expect(await cli('submit', '--id', 'a b', 'x')).toMatchObject({ code: EXIT.usage, err: expect.stringMatching(/--id: invalid task id/u) as unknown });
  });

  it('refuses to submit without a work queue or a NATS context, naming what to add', async () => {
    expect(await cli('submit', 'hello')).toMatchObject({ code: EXIT.config, err: expect.stringMatching(/sets no work queue: add expose\.agent\.jobs/u) as unknown });
    expect(await cli('submit', '--config', 'queue.yaml', 'hello')).toMatchObject({ code: EXIT.config, err: expect.stringMatching(/nats_context is required/u) as unknown });
  });
});
