/**
 * A journaled run killed with SIGKILL in the middle of a tool batch, then resumed: no journaled
 * model call is made again, the call whose result was recorded does not run again, and only the
 * call that was in flight runs a second time.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicText, anthropicToolUse } from '../../src/agenttest/anthropic-wire.js';
import { startFakeModelServer } from '../../src/agenttest/fake-model-server.js';
import type { FakeModelServer } from '../../src/agenttest/fake-model-server.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import { runCli } from '../../src/cli/program.js';
import { captureIo } from '../../src/cli/test-io.js';
import { eventually } from '../../src/agenttest/eventually.js';

const root = resolve(import.meta.dirname, '../..');
const cli = join(root, 'dist', 'bin', 'fisk.cjs');
const fixture = join(root, 'test', 'fixtures', 'fisk-app.mjs');

let dir: string;
let fake: FakeModelServer;

beforeAll(async () => {
  if (!existsSync(cli)) spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'ignore' });
  dir = mkdtempSync(join(tmpdir(), 'fisk-crash-'));
  fake = await startFakeModelServer();
  writeFileSync(
    join(dir, 'agent.yaml'),
    `identity: crasher\napplication_path: ${fixture}\nsystem_prompt: You run things.\nllm:\n  model: claude-fake-1\n`,
  );
}, 180_000);
afterAll(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

function records(): { protocol: string; tool_result?: { result: { tool_use_id: string } } }[] {
  const path = join(dir, 'runs', 'crash1.json');
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as { protocol: string; tool_result?: { result: { tool_use_id: string } } }];
      } catch {
        return []; // a torn final line
      }
    });
}

const resultsFor = (id: string): number => records().filter((r) => r.tool_result?.result.tool_use_id === id).length;

describe('a run killed mid-batch', () => {
  it('resumes without repeating a journaled model call or a recorded tool call', async () => {
    fake.reply(
      anthropicToolUse([
        { id: 'toolu_quick', name: 'stream_ls', input: {} },
        { id: 'toolu_slow', name: 'sleep', input: { seconds: 3 } },
      ]),
    );
    const args = ['run', '--config', join(dir, 'agent.yaml'), '--checkpoint', '--name', 'crash1', '--state-dir', join(dir, 'runs')];
    const model = ['--base-url', fake.url, '--api-key', 'k'];
    const child = spawn(process.execPath, [cli, ...args, ...model, 'go'], {
      cwd: dir,
      env: { PATH: process.env['PATH'], HOME: dir },
      stdio: 'ignore',
    });
    const exited = new Promise<void>((r) => child.once('exit', () => r()));

    // wait until the first call's result is durable, then kill the process while the second runs
    await eventually(() => resultsFor('toolu_quick') > 0, "the first call's result in the journal", { timeoutMs: 60_000, intervalMs: 25 });
    expect(resultsFor('toolu_quick')).toBe(1);
    child.kill('SIGKILL');
    await exited;
    expect(fake.requests).toHaveLength(1);
    expect(resultsFor('toolu_slow')).toBe(0);

    fake.reply(anthropicText('recovered'));
    const io = captureIo({ PATH: process.env['PATH'], HOME: dir }, dir);
    const code = await runCli(
      ['run', '--config', join(dir, 'agent.yaml'), '--resume', 'crash1', '--state-dir', join(dir, 'runs'), ...model],
      io,
    );
    expect(io.stderr()).not.toMatch(/^fisk:/m);
    expect(code).toBe(EXIT.ok);
    expect(io.stdout()).toContain('recovered');

    // one model call before the crash, one after: the journaled one was not made again
    expect(fake.requests).toHaveLength(2);
    // the recorded call did not run again; the one in flight ran once more and was recorded once
    expect(resultsFor('toolu_quick')).toBe(1);
    expect(resultsFor('toolu_slow')).toBe(1);
    const resent = JSON.stringify(fake.requests[1]?.body);
    expect(resent).toContain('toolu_quick');
    expect(resent).toContain('toolu_slow');
    expect(records().some((r) => r.protocol.endsWith('.claim'))).toBe(true);
  });
});
