import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TaskError, fileTaskStore, pendingTask } from '../../tasks/index.js';
import type { TaskStore } from '../../tasks/index.js';
import { EXIT } from '../exit-codes.js';
import { runCli } from '../program.js';
import { captureIo } from '../test-io.js';
import { waitForResult } from './task-action.js';

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
    expect(listed.out.split('\n')[1]).toMatch(/^weekly +completed +0 +2026-01-02 03:04:05Z +write the (\[31m)?report$/u);
    const shown = await cli('show', '--state-dir', 'st', 'weekly');
    expect(shown.out).toContain('State:    completed');
    expect(shown.out).toContain('Answer:\nall good');
    expect(shown.out).not.toContain('\u001b');
  });

  it('filters by state, shows who runs a running task, and removes only a task with its result', async () => {
    const store = fileTaskStore(join(dir, 'sf', 'tasks'));
    await store.ask(pendingTask('busy', 'job-2', 'still going', new Date('2026-01-03T00:00:00Z')));
    await store.progress('busy', { state: 'running', worker: 'host-a:42', attempts: 2, started: new Date('2026-01-03T00:01:00Z') });
    await store.ask(pendingTask('gone', 'job-3', 'gave up', new Date('2026-01-02T00:00:00Z')));
    await store.progress('gone', {
      state: 'pending',
      failure: { attempt: 1, worker: 'host-a:42', message: 'model call failed: overloaded' },
    });
    await store.complete('gone', { state: 'dead', reason: 'max_deliver', message: 'gave up after 1 attempts' });
    const running = await cli('ls', '--state-dir', 'sf', '--state', 'running');
    expect(running.out.split('\n')[0]).toMatch(/^ID +STATE +ATTEMPTS +CREATED +RUNNING ON +PROMPT$/u);
    expect(running.out.split('\n')[1]).toMatch(
      /^busy +running +2 +2026-01-03 00:00:00Z +host-a:42 since 2026-01-03 00:01:00Z +still going$/u,
    );
    expect(running.out).not.toContain('gone');
    expect((await cli('ls', '--state-dir', 'sf', '--state', 'dead')).out).toMatch(/gone +dead +1 /u);
    expect(await cli('ls', '--state-dir', 'sf', '--state', 'failed')).toMatchObject({ code: EXIT.ok, out: '', err: 'No failed tasks\n' });
    expect(await cli('ls', '--state-dir', 'sf', '--state', 'stuck')).toMatchObject({
      code: EXIT.usage,
      err: expect.stringMatching(/--state "stuck" is not a task state; use one of pending, running, completed, failed, dead/u) as unknown,
    });
    const shown = await cli('show', '--state-dir', 'sf', 'gone');
    expect(shown.out).toMatch(/Attempts: 1/u);
    expect(shown.out).toMatch(/Failed attempts:\n {2}1 {2}\S+ {2}host-a:42 {2}model call failed: overloaded/u);
    expect(await cli('rm', '--state-dir', 'sf', 'busy')).toMatchObject({
      code: EXIT.usage,
      err: expect.stringMatching(/task busy is running: its job is still in the queue/u) as unknown,
    });
    expect(await store.get('busy')).toMatchObject({ state: 'running' });
    expect(await cli('rm', '--state-dir', 'sf', 'gone')).toMatchObject({
      code: EXIT.ok,
      err: expect.stringMatching(/removed task gone \(dead\); its journal job-3 is kept/u) as unknown,
    });
    expect(await store.get('gone')).toBeUndefined();
    expect(await cli('rm', '--state-dir', 'sf', 'gone')).toMatchObject({
      code: EXIT.error,
      err: expect.stringMatching(/no task "gone"/u) as unknown,
    });
  });

  it('refuses to retry without a work queue', async () => {
    expect(await cli('retry', 'weekly')).toMatchObject({
      code: EXIT.config,
      err: expect.stringMatching(/sets no work queue: add expose\.agent\.jobs/u) as unknown,
    });
  });

  it('fails clearly on an unknown or malformed task id', async () => {
    expect(await cli('show', 'nobody')).toMatchObject({ code: EXIT.error, err: expect.stringMatching(/no task "nobody" in /u) as unknown });
    expect(await cli('show', '../x')).toMatchObject({ code: EXIT.usage, err: expect.stringMatching(/invalid task id/u) as unknown });
  });

  it('refuses bad submit flags before reading anything', async () => {
    expect((await cli('submit', '--max-tokens', '0', 'x')).code).toBe(EXIT.usage);
    expect((await cli('submit', '--max-iterations', 'two', 'x')).code).toBe(EXIT.usage);
    expect(await cli('submit', '--timeout', '5s', 'x')).toMatchObject({
      code: EXIT.usage,
      err: expect.stringMatching(/--timeout applies only with --wait/u) as unknown,
    });
    expect(await cli('submit', '--wait', '--timeout', 'soon', 'x')).toMatchObject({
      code: EXIT.usage,
      err: expect.stringMatching(/not a duration/u) as unknown,
    });
    expect(await cli('submit', '--id', 'a b', 'x')).toMatchObject({
      code: EXIT.usage,
      err: expect.stringMatching(/--id: invalid task id/u) as unknown,
    });
  });

  it('refuses to submit without a work queue or a NATS context, naming what to add', async () => {
    expect(await cli('submit', 'hello')).toMatchObject({
      code: EXIT.config,
      err: expect.stringMatching(/sets no work queue: add expose\.agent\.jobs/u) as unknown,
    });
    expect(await cli('submit', '--config', 'queue.yaml', 'hello')).toMatchObject({
      code: EXIT.config,
      err: expect.stringMatching(/nats_context is required/u) as unknown,
    });
  });
});

describe('waiting for a result', () => {
  /** A file store whose reads fail `failing` times, as a JetStream bucket does while NATS is away. */
  function flaky(failing: number, error: () => Error): TaskStore {
    const store = fileTaskStore(join(dir, `flaky-${failing}`, 'tasks'));
    let left = failing;
    return {
      ...store,
      get: (id) => {
        if (left-- > 0) return Promise.reject(error());
        return store.get(id);
      },
    };
  }

  it('waits out a store that does not answer for a while, saying so once and once more when it reads again', async () => {
    const store = flaky(3, () => new TaskError('unavailable', 'cannot read task w1 in KV bucket T: timeout'));
    await store.ask(pendingTask('w1', 'job-w1', 'wait for me', new Date()));
    await store.complete('w1', { state: 'completed', answer: 'here' });
    const told: string[] = [];
    const result = await waitForResult(store, 'w1', undefined, (line) => told.push(line));
    expect(result).toMatchObject({ id: 'w1', state: 'completed', answer: 'here' });
    expect(told).toEqual([
      'cannot read task w1 in KV bucket T: timeout; still waiting, since the job runs on without this command (Ctrl-C stops waiting)',
      "reading job w1's task again; still waiting for its result",
    ]);
  });

  it('ends the wait on a failure a later read cannot get past', async () => {
    const store = flaky(1, () => new TaskError('schema', 'task w2 in KV bucket T: not a task record'));
    await store.ask(pendingTask('w2', 'job-w2', 'never read', new Date()));
    await expect(waitForResult(store, 'w2', undefined)).rejects.toThrow('not a task record');
  });

  it('still gives up at its timeout while the store does not answer', async () => {
    const store = flaky(Number.MAX_SAFE_INTEGER, () => new TaskError('unavailable', 'cannot read task w3: timeout'));
    expect(await waitForResult(store, 'w3', 300)).toBe('timeout');
  });
});
