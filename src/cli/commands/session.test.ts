import { DiscardPolicy, jetstreamManager } from '@nats-io/jetstream';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNatsServer } from '../../agenttest/nats-server.js';
import type { NatsServer } from '../../agenttest/nats-server.js';
import { connectNats } from '../../conns/nats-connect.js';
import { ZERO_USAGE } from '../../llm/types.js';
import {
  appendNext,
  assistantBody,
  deferralBody,
  fileSessionStore,
  loadRun,
  startRun,
  terminalBody,
  toolResultBody,
} from '../../runstate/index.js';
import { jetstreamSessionStore } from '../../runstate/jetstream/store.js';
import type { SessionStore } from '../../runstate/index.js';
import { EXIT } from '../exit-codes.js';
import { runCli } from '../program.js';
import { captureIo } from '../test-io.js';

const dir = mkdtempSync(join(tmpdir(), 'fisk-session-cli-'));
const runs = join(dir, 'runs');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = { HOME: dir, XDG_STATE_HOME: join(dir, 'state'), XDG_CONFIG_HOME: join(dir, 'config') };

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = captureIo(env, dir);
  const code = await runCli(['session', ...argv], io);
  return { code, out: io.stdout(), err: io.stderr() };
}

const fingerprint = { provider: 'anthropic', model: 'claude-test' };
async function writeRun(store: SessionStore, id: string, prompt: string): Promise<void> {
  const j = await startRun(store, { runId: id, fingerprint, prompt });
  await appendNext(
    j,
    assistantBody({
      iteration: 0,
      message: {
        role: 'assistant',
        content: [
          { type: 'thinking', text: 'secret reasoning' },
          { type: 'text', text: 'checking' },
          { type: 'tool_use', id: 'c1', name: 'echo', input: '{"msg":"hi"}' },
          { type: 'tool_use', id: 'c2', name: 'ask_later', input: '{}' },
        ],
      },
      usage: { ...ZERO_USAGE, input: 12, output: 7 },
    }),
  );
  await appendNext(j, toolResultBody({ type: 'tool_result', toolUseId: 'c1', content: 'said \u001b[31mhi\u001b[0m' }));
  await appendNext(j, deferralBody('c2', 'ask_later', 'waiting for ops'));
  await appendNext(j, terminalBody('suspended'));
  await j.close();
}

describe('fisk session on the file backend', () => {
  beforeAll(async () => {
    await writeRun(fileSessionStore(runs), 'alpha', `please ${'x'.repeat(80)}`);
  });

  it('says where it looked when there are no runs', async () => {
    const r = await cli('--state-dir', join(dir, 'empty'), 'ls');
    expect(r.code).toBe(EXIT.ok);
    expect(r.err).toContain('No checkpointed sessions (file backend; pass --config');
    expect(r.out).toBe('');
  });

  it('lists runs with id, model, status, updated and a truncated prompt', async () => {
    const r = await cli('--state-dir', runs, 'ls');
    expect(r.code).toBe(EXIT.ok);
    const [head, row] = r.out.split('\n');
    expect(head).toMatch(/^ID\s+Model\s+Status\s+Updated\s+Prompt$/);
    expect(row).toMatch(/^alpha\s+claude-test\s+suspended\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ\s+please x+\.\.\.$/);
  });

  it('shows counters and the pending batch with how to answer it', async () => {
    const r = await cli('--state-dir', runs, 'show', 'alpha');
    expect(r.code).toBe(EXIT.ok);
    expect(r.out).toContain('Session alpha');
    expect(r.out).toContain('Tool calls  1 (remote 0)');
    expect(r.out).toContain('Tokens      12 in / 7 out');
    expect(r.out).toContain('c1 echo (answered)');
    expect(r.out).toContain('c2 ask_later (deferred: waiting for ops; answer with fisk session answer alpha c2 RESULT)');
  });

  it('prints the transcript through the line renderer, stripped of control sequences, thinking only on request', async () => {
    const r = await cli('--state-dir', runs, 'show', 'alpha', '--transcript');
    expect(r.out).toContain('--- transcript ---');
    expect(r.out).toContain('> please');
    expect(r.out).toContain('-> echo');
    expect(r.out).toContain('<- said');
    expect(r.out).not.toContain('\u001b');
    expect(r.out).not.toContain('secret reasoning');
    const t = await cli('--state-dir', runs, 'show', 'alpha', '--transcript', '--thinking');
    expect(t.out).toContain('thinking: secret reasoning');
  });

  it('shows a run whose model nested a tool call 5,000 levels deep, pending call included', async () => {
    const where = join(dir, 'deep-runs');
    const store = fileSessionStore(where);
    const j = await startRun(store, { runId: 'deep', fingerprint, prompt: 'p' });
    const input = `{"q":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    await appendNext(
      j,
      assistantBody({
        iteration: 0,
        message: { role: 'assistant', content: [{ type: 'tool_use', id: 'd1', name: 'echo', input }] },
        usage: ZERO_USAGE,
      }),
    );
    await j.close();
    expect((await loadRun(store, 'deep')).pending?.calls[0]?.state).toBe('unanswered');
    const r = await cli('--state-dir', where, 'show', 'deep', '--transcript');
    expect(r.code).toBe(EXIT.ok);
    expect(r.out).toContain('-> echo q=[[[');
  });

  it('refuses an unknown or malformed id', async () => {
    const r = await cli('--state-dir', runs, 'show', 'nope');
    expect(r.code).toBe(EXIT.error);
    expect(r.err).toContain('run not found: "nope"');
    const bad = await cli('--state-dir', runs, 'show', '../x');
    expect(bad.err).toContain('invalid run id');
  });

  it('answers a deferred call once and refuses the second answer and undeferred calls', async () => {
    await writeRun(fileSessionStore(runs), 'beta', 'p');
    const wrong = await cli('--state-dir', runs, 'answer', 'beta', 'c1', 'x');
    expect(wrong.code).toBe(EXIT.error);
    expect(wrong.err).toContain('already answered');
    const ok = await cli('--state-dir', runs, 'answer', 'beta', 'c2', 'approved by ops');
    expect(ok.code).toBe(EXIT.ok);
    expect(ok.err).toContain('fisk run --resume beta');
    const run = await loadRun(fileSessionStore(runs), 'beta');
    expect(run.pending).toBeUndefined();
    expect(run.messages[2]?.content[1]).toEqual({ type: 'tool_result', toolUseId: 'c2', content: 'approved by ops' });
    const again = await cli('--state-dir', runs, 'answer', 'beta', 'c2', 'again');
    expect(again.code).toBe(EXIT.error);
    expect(again.err).toContain('call c2 of run beta was already answered');
    const missing = await cli('--state-dir', runs, 'answer', 'beta', 'zz', 'x');
    expect(missing.err).toContain('has no call zz');
  });

  it('approves or declines a call the stopped run has not run, a decline with the reason the resumed run sends the model', async () => {
    const store = fileSessionStore(runs);
    const j = await startRun(store, { runId: 'gated', fingerprint, prompt: 'purge' });
    const uses = ['g1', 'g2', 'g3'].map((id) => ({ type: 'tool_use' as const, id, name: 'stream_purge', input: '{}' }));
    await appendNext(
      j,
      assistantBody({
        iteration: 0,
        message: { role: 'assistant', content: [...uses, { type: 'tool_use', id: 'd1', name: 'ask_later', input: '{}' }] },
        usage: ZERO_USAGE,
      }),
    );
    await appendNext(j, deferralBody('d1', 'ask_later', 'waiting'));
    await appendNext(j, terminalBody('suspended'));
    await j.close();

    // flags that do not go together are refused before anything is read, naming the flag
    const refused = async (...argv: string[]): Promise<string> => {
      const r = await cli('--state-dir', runs, 'answer', 'gated', ...argv);
      expect(r.code).toBe(EXIT.usage);
      return r.err;
    };
    expect(await refused('g1', '--approve', '--reason', 'why')).toContain('--reason goes with --decline: an approval carries no reason');
    expect(await refused('g1', '--reason', 'why', 'text')).toContain('--reason goes with --decline');
    expect(await refused('g1', '--approve', '--decline')).toContain('--approve and --decline cannot be used together');
    expect(await refused('g1', '--decline', 'text')).toContain('--decline takes no RESULT');
    expect(await refused('g1', '--approve', '--error')).toContain('--error marks a result');
    expect(await refused('g1', '--decline', '--reason', ' \u001b[2K ')).toContain('--reason is empty');
    expect(await refused('g1')).toContain('answer needs the RESULT text');

    const declined = await cli(
      '--state-dir',
      runs,
      'answer',
      'gated',
      'g1',
      '--decline',
      '--reason',
      'purge the \u001b[31marchive\u001b[0m\ninstead',
    );
    expect(declined.code).toBe(EXIT.ok);
    expect(declined.out).toContain('Declined call g1 of session gated, with the reason');
    expect(declined.err).toContain('fisk run --resume gated');
    expect((await cli('--state-dir', runs, 'answer', 'gated', 'g2', '--approve')).out).toContain('Approved call g2 of session gated');
    expect((await cli('--state-dir', runs, 'answer', 'gated', 'g3', '--decline')).code).toBe(EXIT.ok);
    const calls = (await loadRun(store, 'gated')).pending?.calls ?? [];
    expect(calls.slice(0, 3)).toEqual([
      { state: 'unanswered', call: uses[0], approval: 'decline', reason: 'purge the archive instead' },
      { state: 'unanswered', call: uses[1], approval: 'approve' },
      { state: 'unanswered', call: uses[2], approval: 'decline' },
    ]);
    // a decided, deferred, unknown or answered call is refused
    const again = await cli('--state-dir', runs, 'answer', 'gated', 'g1', '--approve');
    expect(again.code).toBe(EXIT.error);
    expect(again.err).toContain('call g1 of run gated was already declined');
    expect((await cli('--state-dir', runs, 'answer', 'gated', 'd1', '--approve')).err).toContain(
      'was deferred: answer it with a result, fisk session answer gated d1 RESULT',
    );
    expect((await cli('--state-dir', runs, 'answer', 'gated', 'zz', '--decline')).err).toContain('has no call zz');
    await writeRun(store, 'answered', 'p');
    expect((await cli('--state-dir', runs, 'answer', 'answered', 'c1', '--approve')).err).toContain(
      'call c1 of run answered was already answered',
    );
  });

  it('removes a run, and refuses to remove one that does not exist', async () => {
    await writeRun(fileSessionStore(runs), 'gamma', 'p');
    const r = await cli('--state-dir', runs, 'rm', 'gamma');
    expect(r.out).toContain('Removed session gamma');
    expect((await cli('--state-dir', runs, 'show', 'gamma')).code).toBe(EXIT.error);
    expect((await cli('--state-dir', runs, 'rm', 'gamma')).err).toContain('run not found');
  });

  it('lists a corrupt journal marked corrupt with the reason, and removes it', async () => {
    const where = join(dir, 'corrupt-runs');
    await writeRun(fileSessionStore(where), 'fine', 'p');
    const broken = fileSessionStore(where);
    const j = await startRun(broken, { runId: 'broken', fingerprint, prompt: 'p' });
    await j.close();
    // seq 1 straight to seq 7: records are missing
    writeFileSync(
      join(where, 'broken.json'),
      `${JSON.stringify({ seq: 7, protocol: 'io.choria.fisk-ai.v1.session.terminal', terminal: { reason: 'completed' } })}\n`,
      { flag: 'a' },
    );
    const ls = await cli('--state-dir', where, 'ls');
    expect(ls.code).toBe(EXIT.ok);
    const row = ls.out.split('\n').find((l) => l.startsWith('broken'));
    expect(row).toMatch(/^broken\s+corrupt\s+\S+ \S+\s+corrupt record sequence: .*broken\.json line 2: seq 7 does not follow seq 1/);
    expect(ls.out).toMatch(/^fine\s+claude-test/m);
    const show = await cli('--state-dir', where, 'show', 'broken');
    expect(show.code).toBe(EXIT.error);
    expect(show.err).toMatch(/broken\.json line 2: seq 7 does not follow seq 1 \(a gap/);
    const rm = await cli('--state-dir', where, 'rm', 'broken');
    expect(rm.code).toBe(EXIT.ok);
    expect(rm.out).toContain('Removed session broken');
    expect((await cli('--state-dir', where, 'ls')).out).not.toContain('broken');
  });

  it('uses the directory a configuration names, ./agent.yaml without --config as fisk run does, and the XDG default without either', async () => {
    const cfg = join(dir, 'agent.yaml');
    writeFileSync(cfg, 'harness:\n  sessions:\n    backend: file\n    options:\n      directory: runs\n');
    try {
      expect((await cli('--config', cfg, 'ls')).out).toContain('alpha');
      await writeRun(fileSessionStore(join(dir, 'state', 'fisk-ai', 'runs')), 'xdg', 'p');
      // ./agent.yaml is read without --config, as fisk run reads it
      const here = await cli('ls');
      expect(here.out).toContain('alpha');
      expect(here.out).not.toContain('xdg');
      // a directory without one falls back to the XDG default
      const elsewhere = mkdtempSync(join(dir, 'elsewhere-'));
      const io = captureIo(env, elsewhere);
      expect(await runCli(['session', 'ls'], io)).toBe(EXIT.ok);
      expect(io.stdout()).toContain('xdg');
      expect(io.stdout()).not.toContain('alpha');
    } finally {
      rmSync(cfg);
    }
  });

  it('lists a file that holds no journal as corrupt, and resuming it says so', async () => {
    const where = join(dir, 'garbage-runs');
    mkdirSync(where, { recursive: true });
    writeFileSync(join(where, 'junk.json'), 'garbage, not a journal');
    const ls = await cli('--state-dir', where, 'ls');
    expect(ls.out).toMatch(/^junk\s+corrupt\s+\S+ \S+\s+corrupt record sequence: .*junk\.json holds no whole record/m);
    const show = await cli('--state-dir', where, 'show', 'junk');
    expect(show.code).toBe(EXIT.error);
    expect(show.err).toContain('holds no whole record');
    expect(show.err).not.toContain('not found');
  });

  it('refuses a typo in the options block and --state-dir with another backend', async () => {
    const typo = join(dir, 'typo.yaml');
    writeFileSync(typo, 'harness:\n  sessions:\n    backend: file\n    options:\n      dir: runs\n');
    const t = await cli('--config', typo, 'ls');
    expect(t.code).toBe(EXIT.config);
    expect(t.err).toContain('harness.sessions.options.dir');
    const js = join(dir, 'js.yaml');
    writeFileSync(js, 'nats_context: none\nharness:\n  sessions:\n    backend: jetstream\n    options:\n      stream: S\n');
    const r = await cli('--config', js, '--state-dir', runs, 'ls');
    expect(r.code).toBe(EXIT.config);
    expect(r.err).toContain('harness.sessions.backend is "jetstream": remove --state-dir');
  });
});

describe('fisk session on the jetstream backend', () => {
  let nats: NatsServer;
  beforeAll(async () => {
    nats = await startNatsServer();
    mkdirSync(join(env.XDG_CONFIG_HOME, 'nats', 'context'), { recursive: true });
    writeFileSync(join(env.XDG_CONFIG_HOME, 'nats', 'context', 'cli.json'), JSON.stringify({ url: nats.url }));
    const conn = await connectNats('cli', { env });
    const jsm = await jetstreamManager(conn.connection);
    await jsm.streams.add({
      name: 'RUNS',
      subjects: ['fisk.sessions.>'],
      max_msgs_per_subject: 1,
      discard: DiscardPolicy.New,
      discard_new_per_subject: true,
    });
    await writeRun(await jetstreamSessionStore(conn, 'RUNS'), 'remote1', 'from the stream');
    await conn.connection.close();
  }, 20_000);
  afterAll(async () => nats.stop());

  it('lists, shows and answers runs in the configured stream', async () => {
    const cfg = join(dir, 'jsagent.yaml');
    writeFileSync(cfg, 'nats_context: cli\nharness:\n  sessions:\n    backend: jetstream\n    options:\n      stream: RUNS\n');
    const ls = await cli('--config', cfg, 'ls');
    expect(ls.code).toBe(EXIT.ok);
    expect(ls.out).toMatch(/remote1\s+claude-test\s+suspended/);
    expect((await cli('--config', cfg, 'answer', 'remote1', 'c2', 'done')).code).toBe(EXIT.ok);
    const show = await cli('--config', cfg, 'show', 'remote1');
    expect(show.out).not.toContain('Pending');
  });
});
