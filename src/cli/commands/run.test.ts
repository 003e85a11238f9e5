import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Command } from 'commander';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { anthropicError, anthropicText, anthropicToolUse } from '../../agenttest/anthropic-wire.js';
import { startFakeModelServer } from '../../agenttest/fake-model-server.js';
import type { FakeModelServer } from '../../agenttest/fake-model-server.js';
import { loadRun, openSessionStore } from '../../runstate/index.js';
import { EXIT } from '../exit-codes.js';
import { runCli } from '../program.js';
import { captureIo } from '../test-io.js';
import { registerRun } from './run.js';

const FIXTURE = resolve(import.meta.dirname, '../../../test/fixtures/fisk-app.mjs');

let dir: string;
let fake: FakeModelServer;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fisk-run-'));
  fake = await startFakeModelServer();
});
afterEach(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

function agent(extra = ''): string {
  const path = join(dir, 'agent.yaml');
  writeFileSync(
    path,
    `identity: runner\napplication_path: ${FIXTURE}\nsystem_prompt: You run things.\nllm:\n  model: claude-fake-1\n${extra}`,
  );
  return path;
}

async function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  const io = captureIo({ PATH: process.env['PATH'], ...env }, dir);
  const code = await runCli(['run', '--config', agent(), '--base-url', fake.url, '--api-key', 'sk-test', ...args], io);
  return { code, out: io.stdout(), err: io.stderr() };
}

describe('fisk run', () => {
  it('introspects the application once for a run', async () => {
    fake.reply(anthropicToolUse([{ id: 'toolu_1', name: 'stream_ls', input: {} }]), anthropicText('done'));
    const log = join(dir, 'pids');
    const r = await run(['list', 'the', 'streams'], { FIXTURE_PIDLOG: log });
    expect(r.code).toBe(EXIT.ok);
    // the tool call runs the application too, but only introspection writes to the log
    expect(
      readFileSync(log, 'utf8')
        .split('\n')
        .filter((l) => l !== ''),
    ).toHaveLength(1);
  });

  it('prints only the answer on stdout; tool lines and the summary go to stderr', async () => {
    fake.reply(
      anthropicToolUse([{ id: 'toolu_1', name: 'stream_ls', input: {} }]),
      anthropicText('There is **one** stream.', { usage: { input_tokens: 12, output_tokens: 7 } }),
    );
    const r = await run(['list', 'the', 'streams', '--tool-output']);
    expect(r.code).toBe(EXIT.ok);
    expect(r.out).toBe('There is **one** stream.\n');
    expect(r.err).toContain('-> stream_ls');
    expect(r.err).toContain('<- {"path":["stream","ls"]');
    expect(r.err).toMatch(/Run summary: model=claude-fake-1 llm_calls=2 tool_calls=1 tokens=12\/7 latency=\d+\.\d{3}s/);
    const first = fake.requests[0]?.body as { messages: { content: unknown }[] };
    expect(JSON.stringify(first.messages[0])).toContain('list the streams');
  });

  it('denies a gated command with no terminal, without running it, and says so', async () => {
    fake.reply(anthropicToolUse([{ id: 'toolu_1', name: 'stream_purge', input: { stream: 'orders' } }]), anthropicText('ok'));
    const r = await run(['purge', 'orders']);
    expect(r.code).toBe(EXIT.ok);
    expect(r.err).toMatch(/warning: \d+ tools? needs? approval and there is no interactive terminal: (they|it) will be declined/);
    // the refusal is shown without --tool-output
    expect(r.err).toContain('-> stream_purge');
    expect(r.err).toMatch(/<- refused: .+/);
    const second = JSON.stringify(fake.requests[1]?.body);
    expect(second).toContain('allowed');
    expect(second).not.toContain('"path"');
  });

  it("says at the start that the model's questions will be declined with no terminal, and declines them", async () => {
    fake.reply(anthropicToolUse([{ id: 'toolu_1', name: 'ask_human_confirm', input: { question: 'Purge orders?' } }]), anthropicText('ok'));
    const io = captureIo({ PATH: process.env['PATH'] }, dir);
    const code = await runCli(
      ['run', '--config', agent('harness:\n  human_in_the_loop:\n    enabled: true\n'), '--base-url', fake.url, '--api-key', 'k', 'go'],
      io,
    );
    expect(code).toBe(EXIT.ok);
    const warning = io
      .stderr()
      .indexOf(
        'warning: harness.human_in_the_loop is on and there is no interactive terminal: questions the model asks (ask_human_*) will be answered as declined',
      );
    expect(warning).toBeGreaterThan(-1);
    // said before anything of the run itself
    expect(warning).toBeLessThan(io.stderr().indexOf('Run summary'));
    expect(JSON.stringify(fake.requests[1]?.body)).toContain('no operator is present to answer');
  });

  it('exits with the budget status and names the key', async () => {
    fake.reply(anthropicToolUse([{ id: 't', name: 'stream_ls', input: {} }], { usage: { input_tokens: 900, output_tokens: 200 } }));
    const io = captureIo({ PATH: process.env['PATH'] }, dir);
    const code = await runCli(
      ['run', '--config', agent('  budget: { max_tokens: 1000 }\n'), '--base-url', fake.url, '--api-key', 'k', 'go'],
      io,
    );
    expect(code).toBe(EXIT.budget);
    expect(io.stderr()).toContain('llm.budget.max_tokens');
    expect(io.stdout()).toBe('');
  });

  it('exits with the max-iterations status', async () => {
    fake.reply(anthropicToolUse([{ id: 't', name: 'stream_ls', input: {} }]));
    const io = captureIo({ PATH: process.env['PATH'] }, dir);
    const code = await runCli(
      ['run', '--config', agent('  budget: { max_iterations: 1 }\n'), '--base-url', fake.url, '--api-key', 'k', 'go'],
      io,
    );
    expect(code).toBe(EXIT.maxIterations);
  });

  it('exits with the error status when the model call fails', async () => {
    fake.reply(anthropicError(400, 'invalid_request_error', 'messages: bad'));
    const r = await run(['go']);
    expect(r.code).toBe(EXIT.error);
    expect(r.err).toContain('model call failed');
    expect(r.out).toBe('');
  });

  it('exits with the configuration status for a bad agent.yaml, before contacting the model', async () => {
    const path = join(dir, 'agent.yaml');
    writeFileSync(path, 'llm:\n  modle: x\n');
    const io = captureIo({}, dir);
    const code = await runCli(['run', '--config', path, '--base-url', fake.url, 'go'], io);
    expect(code).toBe(EXIT.config);
    expect(fake.requests).toHaveLength(0);
  });

  it('writes a 0600 JSON-lines trace and refuses to overwrite one', async () => {
    fake.reply(anthropicText('traced'));
    const trace = join(dir, 'trace.jsonl');
    const r = await run(['--trace', trace, 'go']);
    expect(r.code).toBe(EXIT.ok);
    expect(statSync(trace).mode & 0o777).toBe(0o600);
    const types = readFileSync(trace, 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { type: string }).type);
    expect(types).toEqual(['session', 'request', 'response', 'summary']);
    expect(readFileSync(trace, 'utf8')).not.toContain('sk-test');
    const again = await run(['--trace', trace, 'go']);
    expect(again.code).toBe(EXIT.usage);
    expect(again.err).toContain('already exists');
  });

  it('writes the HTTP debug log with --http-debug', async () => {
    fake.reply(anthropicText('debugged'));
    const r = await run(['--http-debug', 'go']);
    expect(r.code).toBe(EXIT.ok);
    expect(existsSync(join(dir, 'http-debug.log'))).toBe(true);
    expect(readFileSync(join(dir, 'http-debug.log'), 'utf8')).toContain('=== HTTP request: POST');
    expect(r.err).toContain('http-debug.log');
  });

  it('loads the memory tools and their notes from harness.memory', async () => {
    fake.reply(
      anthropicToolUse([
        {
          id: 'toolu_m',
          name: 'memory_write',
          input: { key: 'streams.note', description: 'What the streams hold', content: 'orders holds orders' },
        },
      ]),
      anthropicText('remembered'),
    );
    const io = captureIo({ PATH: process.env['PATH'] }, dir);
    const code = await runCli(
      ['run', '--config', agent('harness:\n  memory: { enabled: true }\n'), '--base-url', fake.url, '--api-key', 'k', 'go'],
      io,
    );
    expect(code).toBe(EXIT.ok);
    const first = fake.requests[0]?.body as { system: { text: string }[]; tools: { name: string }[] };
    expect(first.tools.map((t) => t.name)).toContain('memory_write');
    expect(first.system.length).toBeGreaterThan(1);
    expect(existsSync(join(dir, 'memory', 'runner', 'streams.note.md'))).toBe(true);
  });

  it('fails before contacting the model when the memory backend cannot open', async () => {
    const io = captureIo({ PATH: process.env['PATH'] }, dir);
    const code = await runCli(
      [
        'run',
        '--config',
        agent('harness:\n  memory: { enabled: true, backend: jetstream, options: { bucket: MEM } }\n'),
        '--base-url',
        fake.url,
        '--api-key',
        'k',
        'go',
      ],
      io,
    );
    expect(code).not.toBe(EXIT.ok);
    expect(io.stderr()).toContain('harness.memory');
    expect(fake.requests).toHaveLength(0);
  });

  it('offers the knowledge tools from harness.knowledge and closes the store', async () => {
    fake.reply(anthropicText('known'));
    const store = mkdtempSync(join(tmpdir(), 'fisk-store-'));
    try {
      const io = captureIo({ PATH: process.env['PATH'], FISK_AI_STORE_DIR: store }, dir);
      const code = await runCli(
        ['run', '--config', agent('harness:\n  knowledge: { enabled: true }\n'), '--base-url', fake.url, '--api-key', 'k', 'go'],
        io,
      );
      expect(code).toBe(EXIT.ok);
      expect(io.stderr()).not.toContain('knowledge tools yet');
      const first = fake.requests[0]?.body as { system: { text: string }[]; tools: { name: string }[] };
      expect(first.tools.map((t) => t.name)).toContain('knowledge_search');
      expect(first.system.length).toBeGreaterThan(1);
    } finally {
      rmSync(store, { recursive: true, force: true });
    }
  });

  it('refuses a relative FISK_AI_STORE_DIR before contacting the model', async () => {
    const io = captureIo({ PATH: process.env['PATH'], FISK_AI_STORE_DIR: 'stores' }, dir);
    const code = await runCli(
      ['run', '--config', agent('harness:\n  knowledge: { enabled: true }\n'), '--base-url', fake.url, '--api-key', 'k', 'go'],
      io,
    );
    expect(code).toBe(EXIT.usage);
    expect(io.stderr()).toContain('FISK_AI_STORE_DIR');
    expect(fake.requests).toHaveLength(0);
  });

  it('uses llm.base_url when no --base-url flag or environment variable is given', async () => {
    fake.reply(anthropicText('from the file'));
    const io = captureIo({ PATH: process.env['PATH'] }, dir);
    const code = await runCli(['run', '--config', agent(`  base_url: ${fake.url}\n`), '--api-key', 'k', 'go'], io);
    expect(code).toBe(EXIT.ok);
    expect(io.stdout()).toBe('from the file\n');
  });
});

describe('fisk run --checkpoint and --resume', () => {
  const stateFlags = (): string[] => ['--state-dir', join(dir, 'runs')];

  async function loadStored(id: string): Promise<Awaited<ReturnType<typeof loadRun>>> {
    const store = await openSessionStore({ backend: 'file', options: '{}' }, { env: {}, cwd: dir, stateDir: join(dir, 'runs') });
    return loadRun(store, id);
  }

  /** `fisk run` whose interrupt handler lands in `trigger.fire`, so the test can press Ctrl-C. */
  async function runInterruptible(trigger: { fire?: () => void }, args: string[]): Promise<string> {
    const io = captureIo({ PATH: process.env['PATH'] }, dir);
    const program = new Command('fisk').exitOverride();
    registerRun(program, io, {
      onInterrupt: (h) => {
        trigger.fire = h;
        return () => {
          delete trigger.fire;
        };
      },
    });
    await program.parseAsync(['run', '--config', agent(), '--base-url', fake.url, '--api-key', 'k', ...args], { from: 'user' });
    return io.stderr();
  }

  it('journals a checkpointed run under --name, and the records fold back', async () => {
    fake.reply(anthropicToolUse([{ id: 'toolu_1', name: 'stream_ls', input: {} }]), anthropicText('done'));
    const r = await run(['--checkpoint', '--name', 'first', ...stateFlags(), 'list', 'streams']);
    expect(r.code).toBe(EXIT.ok);
    expect(r.out).toBe('done\n');
    expect(r.err).toMatch(/Run summary: session=first model=claude-fake-1 /);
    const stored = await loadStored('first');
    expect(stored.status).toBe('completed');
    expect(stored.prompt).toBe('list streams');
    expect(stored.fingerprint.model).toBe('claude-fake-1');
    expect(stored.counters.llmCalls).toBe(2);
    expect(stored.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  });

  it('says how to resume a checkpointed run a failed model call stopped, and the resume finishes it', async () => {
    fake.reply(anthropicError(400, 'invalid_request_error', 'messages: bad'));
    const r = await run(['--checkpoint', '--name', 'broke', ...stateFlags(), 'list', 'streams']);
    expect(r.code).toBe(EXIT.error);
    expect(r.err).toContain('stopped: model call failed');
    expect(r.err).toContain(
      `the run is journaled: once the cause is fixed, resume it with: fisk run --resume broke --config ${join(dir, 'agent.yaml')} --state-dir ${join(dir, 'runs')}\n`,
    );
    fake.reply(anthropicText('mended'));
    const resumed = await run(['--resume', 'broke', ...stateFlags()]);
    expect(resumed.code).toBe(EXIT.ok);
    expect(resumed.out).toBe('mended\n');
    // a run that completed says nothing of resuming
    expect(resumed.err).not.toContain('resume it with');
  });

  it('suspends on the first interrupt, then resumes without repeating a journaled model call', async () => {
    const trigger: { fire?: () => void } = {};
    fake.reply(() => {
      trigger.fire?.();
      return anthropicToolUse([{ id: 'toolu_1', name: 'stream_ls', input: {} }]);
    });
    const err = await runInterruptible(trigger, ['--checkpoint', '--name', 'susp', ...stateFlags(), 'list', 'streams']);
    expect(err).toContain('suspend requested');
    expect(err).toContain(
      `suspended; resume with: fisk run --resume susp --config ${join(dir, 'agent.yaml')} --state-dir ${join(dir, 'runs')}`,
    );
    expect(fake.requests).toHaveLength(1);
    const stored = await loadStored('susp');
    expect(stored.status).toBe('suspended');
    expect(stored.pending).toBeUndefined();

    fake.reply(anthropicText('all done'));
    const resumed = await run(['--resume', 'susp', ...stateFlags()]);
    expect(resumed.code).toBe(EXIT.ok);
    expect(resumed.out).toBe('all done\n');
    expect(resumed.err).toContain('-> stream_ls');
    expect(fake.requests).toHaveLength(2);
    const second = JSON.stringify(fake.requests[1]?.body);
    expect(second).toContain('toolu_1');
    expect(second).toContain('list streams');
    expect((await loadStored('susp')).status).toBe('completed');
  });

  it('resumes after the run wrote a memory: the index is not part of the fingerprint, and the model is told it resumed', async () => {
    fake.reply(
      anthropicToolUse([{ id: 'toolu_m', name: 'memory_write', input: { key: 'k1', description: 'a note', content: 'remember this' } }]),
    );
    const yaml = `identity: runner\napplication_path: ${FIXTURE}\nsystem_prompt: You run things.\nllm:\n  model: claude-fake-1\n  budget: { max_iterations: 1 }\nharness:\n  memory: {enabled: true}\n`;
    const path = join(dir, 'mem.yaml');
    writeFileSync(path, yaml);
    const stopped = await run(['--checkpoint', '--name', 'memrun', ...stateFlags(), '--config', path, 'note it']);
    expect(stopped.code).toBe(EXIT.maxIterations);
    // the run's own create is journaled in its memory read record
    expect(Object.keys((await loadStored('memrun')).memoryScope ?? {})).toEqual(['k1']);

    // the budget is raised (a forced, named change); the system prompt must not read as changed
    writeFileSync(path, yaml.replace('max_iterations: 1', 'max_iterations: 3'));
    fake.reply(anthropicText('resumed fine'));
    const resumed = await run(['--resume', 'memrun', '--force', ...stateFlags(), '--config', path]);
    expect(resumed.err).toContain('max_iterations: 1 -> 3');
    expect(resumed.err).not.toContain('system prompt');
    expect(resumed.out).toBe('resumed fine\n');
    const system = JSON.stringify((fake.requests[1]?.body as { system: unknown }).system);
    expect(system).toContain('k1');
    expect(system).toContain('has now been resumed');
    // the resume was seeded with that record, so the newest one still holds it
    expect(Object.keys((await loadStored('memrun')).memoryScope ?? {})).toEqual(['k1']);
  });

  it('refuses a resume under a changed model, naming it; --force resumes anyway', async () => {
    fake.reply(anthropicToolUse([{ id: 'toolu_1', name: 'stream_ls', input: {} }], { usage: { input_tokens: 10, output_tokens: 5 } }));
    const yaml = (model: string, iterations: number): string =>
      `identity: runner\napplication_path: ${FIXTURE}\nsystem_prompt: You run things.\nllm:\n  model: ${model}\n  budget: { max_iterations: ${iterations} }\n`;
    const first = join(dir, 'first.yaml');
    writeFileSync(first, yaml('claude-fake-1', 1));
    const stopped = await run(['--checkpoint', '--name', 'drift', ...stateFlags(), '--config', first, 'go']);
    expect(stopped.code).toBe(EXIT.maxIterations);
    expect(fake.requests).toHaveLength(1);

    const other = join(dir, 'other.yaml');
    writeFileSync(other, yaml('claude-fake-2', 3));
    const refused = await run(['--resume', 'drift', ...stateFlags(), '--config', other]);
    expect(refused.code).not.toBe(EXIT.ok);
    expect(refused.err).toContain('model: claude-fake-1 -> claude-fake-2');
    expect(refused.err).toContain('--force');
    expect(fake.requests).toHaveLength(1);

    fake.reply(anthropicText('forced', { model: 'claude-fake-2' }));
    const forced = await run(['--resume', 'drift', '--force', ...stateFlags(), '--config', other]);
    expect(forced.code).toBe(EXIT.ok);
    expect(forced.out).toBe('forced\n');
    expect(forced.err).toContain('resuming under a changed configuration');
    expect(fake.requests).toHaveLength(2);
    expect((fake.requests[1]?.body as { model: string }).model).toBe('claude-fake-2');
    expect(forced.err).toMatch(/Run summary: session=drift model=claude-fake-2 /);
  });

  it('generates a run id when --checkpoint has no --name', async () => {
    fake.reply(anthropicText('ok'));
    const r = await run(['--checkpoint', ...stateFlags(), 'go']);
    expect(r.code).toBe(EXIT.ok);
    const id = /checkpointing run (\S+)/.exec(r.err)?.[1];
    expect(id).toMatch(/^[A-Za-z0-9][A-Za-z0-9_-]*$/);
    expect((await loadStored(id ?? '')).status).toBe('completed');
    // a completed run has nothing to resume: a runtime refusal (1), not a configuration error (3)
    const again = await run(['--resume', id ?? '', ...stateFlags()]);
    expect(again.code).toBe(EXIT.error);
    expect(again.err).toContain(
      `already completed, so there is nothing to resume (fisk session show ${id ?? ''} --transcript prints its conversation)`,
    );
    expect(fake.requests).toHaveLength(1);
  });

  it.each([
    [['--resume', 'x', '--checkpoint'], '--resume cannot be combined with --checkpoint'],
    [['--resume', 'x', 'a', 'query'], '--resume does not take a query'],
    [['--name', 'x', 'go'], '--name requires --checkpoint'],
    [['--force', 'go'], '--force only applies when resuming'],
    [['--model', ' ', 'go'], '--model is empty; give it a value, or leave it out to use llm.model'],
    [['--base-url', '', 'go'], '--base-url is empty; give it a value'],
    [['--api-key', '', 'go'], '--api-key is empty; give it a value'],
  ])('refuses %j before reading the configuration', async (args, message) => {
    const io = captureIo({}, dir);
    const code = await runCli(['run', '--config', join(dir, 'missing.yaml'), ...args], io);
    expect(code).toBe(EXIT.usage);
    expect(io.stderr()).toContain(message);
  });

  it('refuses --state-dir with a session backend other than file', async () => {
    const io = captureIo({ PATH: process.env['PATH'] }, dir);
    const code = await runCli(
      [
        'run',
        '--config',
        agent('harness:\n  sessions: { backend: jetstream, options: { stream: RUNS } }\n'),
        '--base-url',
        fake.url,
        '--api-key',
        'k',
        '--checkpoint',
        ...stateFlags(),
        'go',
      ],
      io,
    );
    expect(code).not.toBe(EXIT.ok);
    expect(io.stderr()).toContain('harness.sessions.backend');
    expect(fake.requests).toHaveLength(0);
  });
});
