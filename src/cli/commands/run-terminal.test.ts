import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { Command } from 'commander';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { anthropicText, anthropicToolUse } from '../../agenttest/anthropic-wire.js';
import { startFakeModelServer } from '../../agenttest/fake-model-server.js';
import type { FakeModelServer } from '../../agenttest/fake-model-server.js';
import type { Provider, Response } from '../../llm/provider.js';
import { ExitWith } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { captureIo } from '../test-io.js';
import type { CapturedIo } from '../test-io.js';
import { registerRun } from './run.js';
import type { RunCommandDeps } from './run.js';

const FIXTURE = resolve(import.meta.dirname, '../../../test/fixtures/fisk-app.mjs');

let dir: string;
let fake: FakeModelServer;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fisk-run-tty-'));
  fake = await startFakeModelServer();
  writeFileSync(
    join(dir, 'agent.yaml'),
    `identity: tty\napplication_path: ${FIXTURE}\nsystem_prompt: You purge.\nllm:\n  model: claude-fake-1\n`,
  );
});
afterEach(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `fisk run` with injected process resources; resolves to the exit status. */
async function run(io: CapturedIo, deps: RunCommandDeps, args: string[]): Promise<number> {
  const program = new Command('fisk').exitOverride();
  registerRun(program, io, deps);
  try {
    await program.parseAsync(['run', '--config', join(dir, 'agent.yaml'), '--base-url', fake.url, '--api-key', 'k', ...args], {
      from: 'user',
    });
    return EXIT.ok;
  } catch (err) {
    if (err instanceof ExitWith) return err.exitCode;
    throw err;
  }
}

function tty(): PassThrough & { isTTY?: boolean } {
  const input = new PassThrough() as PassThrough & { isTTY?: boolean };
  input.isTTY = true;
  return input;
}

/** Answers each approval prompt that appears on stderr with the next line. */
function answerPrompts(io: CapturedIo, stdin: PassThrough, answers: string[]): void {
  let seen = 0;
  const timer = setInterval(() => {
    const prompts = io.stderr().split('Choose [1]: ').length - 1;
    if (prompts > seen && answers.length > 0) {
      seen = prompts;
      stdin.write(`${answers.shift() ?? ''}\n`);
    }
    if (answers.length === 0) clearInterval(timer);
  }, 5);
}

describe('fisk run at a terminal', () => {
  it('asks on stderr with No first; Enter declines and 2 runs once', async () => {
    fake.reply(
      anthropicToolUse([
        { id: 'toolu_a', name: 'stream_purge', input: { stream: 'orders' } },
        { id: 'toolu_b', name: 'stream_purge', input: { stream: 'audit' } },
      ]),
      anthropicText('one purged'),
    );
    const io = captureIo({ PATH: process.env['PATH'] }, dir);
    const stdin = tty();
    answerPrompts(io, stdin, ['', '2']);
    const code = await run(io, { stdin, onInterrupt: () => () => undefined }, ['purge', 'both']);
    expect(code).toBe(EXIT.ok);
    expect(io.stdout()).toBe('one purged\n');
    const err = io.stderr();
    expect(err).toContain('Approval needed (ai:confirm):');
    expect(err).toContain('stream purge -- orders');
    expect(err.indexOf('1) No')).toBeLessThan(err.indexOf('2) Yes'));
    const second = fake.requests[1]?.bodyText ?? '';
    expect(second).toContain('the operator declined');
    expect(second).toContain('stream purge -- audit');
  });

  it('cancels on the first interrupt and exits 130 with a summary', async () => {
    fake.reply({ hang: true });
    const io = captureIo({ PATH: process.env['PATH'] }, dir);
    let interrupt: (() => void) | undefined;
    const running = run(io, { stdin: tty(), onInterrupt: (h) => ((interrupt = h), () => undefined) }, ['wait']);
    const started = setInterval(() => {
      if (fake.requests.length > 0 && interrupt !== undefined) {
        clearInterval(started);
        interrupt();
      }
    }, 5);
    expect(await running).toBe(EXIT.aborted);
    expect(io.stderr()).toContain('cancelling the run');
    expect(io.stderr()).toContain('Run summary:');
    expect(io.stdout()).toBe('');
  });

  it('reports a crash with status 70: the stack on stderr, no answer on stdout', async () => {
    const io = captureIo({ PATH: process.env['PATH'] }, dir);
    const broken: Provider = {
      capabilities: () => ({ provider: 'broken', semconvProvider: 'broken', toolSearch: false, thinking: false, promptCache: false }),
      // a provider breaking its contract: the loop's own code then throws
      call: () => Promise.resolve({} as Response),
    };
    const code = await run(io, { stdin: tty(), onInterrupt: () => () => undefined, provider: broken }, ['go']);
    expect(code).toBe(EXIT.crashed);
    expect(io.stdout()).toBe('');
    expect(io.stderr()).toContain('panic: ');
    expect(io.stderr()).toContain('TypeError');
    expect(io.stderr()).toContain('fisk-ai crashed');
    expect(io.stderr()).toContain('Run summary:');
  });
});
