import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { alive, awaitLoggedPids, loggedPids } from '../../test/support/processes.js';
import { ToolkitError } from './errors.js';
import type { FiskCommandTool } from './fisk/command-tool.js';
import { loadApplicationTools, startApplicationIntrospection } from './load.js';
import type { LoadApplicationOptions } from './load.js';
import { eventually } from '../agenttest/eventually.js';

const app = fileURLToPath(new URL('../../test/fixtures/fisk-app.mjs', import.meta.url));
const none = { tools: [], tags: [] };
const signal = new AbortController().signal;

function options(extra: Partial<LoadApplicationOptions> = {}, mode = ''): LoadApplicationOptions {
  return {
    applicationPath: app,
    globalFlags: [],
    confirmTags: [],
    include: none,
    exclude: none,
    credentialEnvNames: ['ANTHROPIC_API_KEY', 'MY_SECRET'],
    env: { PATH: process.env['PATH'], FIXTURE_MODE: mode, ANTHROPIC_API_KEY: 'sk-live', MY_SECRET: 's3cret', KEEP_ME: 'yes' },
    ...extra,
  };
}

async function refusal(opts: LoadApplicationOptions): Promise<ToolkitError> {
  try {
    await loadApplicationTools(opts);
  } catch (err) {
    expect(err).toBeInstanceOf(ToolkitError);
    return err as ToolkitError;
  }
  throw new Error('expected the load to fail');
}

describe('loadApplicationTools', () => {
  it('turns visible leaves into tools named by path, skipping hidden subtrees, groups and ai:deny', async () => {
    const loaded = await loadApplicationTools(options());
    expect(loaded.source.tools.map((t) => t.name)).toEqual([
      'echo',
      'stream_ls',
      'stream_rm',
      'stream_purge',
      'deep_inner_leaf',
      'interleave',
      'flood',
      'sleep',
      'spawn',
      'fail',
      'env',
    ]);
    expect(loaded.source.filtered).toEqual([{ name: 'secret', source: 'application', reason: 'denied', detail: 'tagged ai:deny' }]);
    expect(loaded.model.version).toBe('1.2.3');
  });
  it('describes a command plainly and for the model with its tags', async () => {
    const loaded = await loadApplicationTools(options());
    const ls = loaded.source.tools.find((t) => t.name === 'stream_ls');
    expect(ls?.description).toBe('Lists streams\n\nLists every stream the account can see.');
    expect(ls?.modelDescription).toBe('Lists streams\n\nLists every stream the account can see.\n\nTags: ai:read_only, ai:idempotent');
    expect(ls?.kind).toBe('application');
    expect(ls?.mcpExposable()).toBe(true);
  });
  it('gates by ai:confirm and by operator confirm tags, naming the trigger', async () => {
    const loaded = await loadApplicationTools(options({ confirmTags: ['impact:rw'] }));
    const gate = (name: string) => {
      const t = loaded.source.tools.find((x) => x.name === name);
      if (t === undefined || !(t.capabilities.gate !== null)) throw new Error(name);
      return t.capabilities.gate;
    };
    expect(gate('stream_rm')).toEqual({ gated: true, trigger: 'impact:rw' });
    expect(gate('stream_purge')).toEqual({ gated: true, trigger: 'ai:confirm' });
    expect(gate('stream_ls')).toEqual({ gated: false });
  });
  it("passes a group's ai:deny, ai:confirm, ai:no_defer and confirm tags down to every leaf under it", async () => {
    const loaded = await loadApplicationTools(
      options({ confirmTags: ['ops:high'], exclude: { tools: [], tags: ['ops:high'] } }, 'group-tags'),
    );
    const all = (name: string): FiskCommandTool => loaded.all.find((t) => t.name === name) as FiskCommandTool;
    // the group's ai:deny keeps its leaf out, recorded as any denial
    expect(loaded.source.filtered?.find((f) => f.name === 'deep_inner_leaf')).toMatchObject({ reason: 'denied' });
    expect(all('deep_inner_leaf').tags()).toEqual(['ai:no_defer', 'team:core', 'ai:bogus', 'ai:deny']);
    expect(all('deep_inner_leaf').capabilities.deferrable).toBe(false);
    // ai:confirm and the operator's confirm tag reach the leaves and count in filters too
    expect(all('stream_ls').tags()).toEqual(['ai:read_only', 'ai:idempotent', 'ai:confirm', 'ops:high']);
    expect(all('stream_rm').capabilities.gate).toEqual({ gated: true, trigger: 'ai:confirm' });
    expect(all('stream_ls').modelDescription).toMatch(/Tags: ai:read_only, ai:idempotent, ai:confirm, ops:high$/);
    expect(loaded.source.filtered?.find((f) => f.name === 'stream_ls')?.reason).toBe('excluded');
    // a tag that grants rather than restricts stays on the group
    expect(all('stream_rm').tags()).not.toContain('ai:read_only');
    const plain = await loadApplicationTools(options({}, 'group-tags'));
    const rm = plain.source.tools.find((t) => t.name === 'stream_rm');
    expect(rm !== undefined && rm.capabilities.gate !== null ? rm.capabilities.gate : undefined).toEqual({
      gated: true,
      trigger: 'ai:confirm',
    });
  });
  it('skips a command whose schema root is not an object, with a warning and a filtered entry naming it', async () => {
    const loaded = await loadApplicationTools(options({}, 'scalar-schema'));
    expect(loaded.source.tools.map((t) => t.name)).not.toContain('stream_rm');
    expect(loaded.source.tools.map((t) => t.name)).toContain('stream_ls');
    expect(loaded.source.filtered).toContainEqual({
      name: 'stream_rm',
      source: 'application',
      reason: 'unusable_schema',
      detail: 'its restricted schema\'s root is of type "string", not an object',
    });
    expect(loaded.warnings).toContainEqual({
      code: 'unusable_schema',
      tool: 'stream_rm',
      message:
        'command "stream rm" is not offered as a tool: its restricted schema\'s root is of type "string", not an object; fix its arguments in the application',
    });
  });
  it('applies include and exclude after ai:deny', async () => {
    const loaded = await loadApplicationTools(
      options({ include: { tools: ['^stream_'], tags: [''] }, exclude: { tools: [], tags: ['ai:destructive'] } }),
    );
    expect(loaded.source.tools.map((t) => t.name)).toEqual([
      'echo',
      'stream_ls',
      'stream_purge',
      'interleave',
      'flood',
      'sleep',
      'spawn',
      'fail',
    ]);
    expect(loaded.source.filtered?.find((f) => f.name === 'stream_rm')?.reason).toBe('excluded');
    expect(loaded.source.filtered?.find((f) => f.name === 'env')?.reason).toBe('not_included');
  });
  it('merges exposed globals into a clone of each schema, skipping a clashing command', async () => {
    const loaded = await loadApplicationTools(options({ globalFlags: ['context', 'trace'] }));
    const ls = loaded.all.find((t) => t.name === 'stream_ls') as FiskCommandTool;
    const echo = loaded.all.find((t) => t.name === 'echo') as FiskCommandTool;
    expect(Object.keys(ls.inputSchema['properties'] as object)).toEqual(['context', 'trace']);
    expect((echo.inputSchema['properties'] as Record<string, { description: string }>)['context']?.description).toBe(
      'The echo context (shadows the global) (optional)',
    );
    expect(loaded.warnings.map((w) => [w.code, w.tool])).toEqual([['global_flag_clash', 'echo']]);
    expect(ls.argv('{"context":"prod","trace":true}')).toEqual(['stream', 'ls', '--context=prod', '--trace']);
    expect(loaded.globalFlags).toEqual([
      { name: 'context', help: 'The connection context to use', exposed: true, required: false },
      { name: 'trace', help: 'Trace every request', exposed: true, required: false },
    ]);
  });
  it('gives every command a schema whose own levels are frozen, made once, sharing the rest with the decoded document', async () => {
    const loaded = await loadApplicationTools(options({ globalFlags: ['context'] }));
    for (const tool of loaded.all) {
      const schema = tool.inputSchema;
      expect(Object.isFrozen(schema)).toBe(true);
      expect(tool.inputSchema).toBe(schema);
      const props = schema['properties'] as Record<string, Record<string, unknown>> | undefined;
      if (props === undefined) continue;
      expect(Object.isFrozen(props)).toBe(true);
      // a parameter marked optional is a copy made here, and frozen too
      for (const p of Object.values(props))
        if (typeof p['description'] === 'string' && p['description'].endsWith('(optional)')) expect(Object.isFrozen(p)).toBe(true);
    }
    const echo = loaded.all.find((t) => t.name === 'echo') as FiskCommandTool;
    const decoded = loaded.model.commands.find((c) => c.name === 'echo')?.restricted_schema;
    expect(decoded).toBeDefined();
    expect(echo.inputSchema).not.toBe(decoded);
    expect(Object.keys(echo.inputSchema['properties'] as object)).toEqual([...Object.keys(decoded?.['properties'] as object)]);
  });
  it('always exposes a global the application requires', async () => {
    const loaded = await loadApplicationTools(options({}, 'required-global'));
    const ls = loaded.all.find((t) => t.name === 'stream_ls') as FiskCommandTool;
    expect(ls.inputSchema['required']).toEqual(['region']);
  });
  it('refuses unknown, hidden and framework global flags by name', async () => {
    expect((await refusal(options({ globalFlags: ['contxt'] }))).message).toBe(
      'global_flags: "contxt" is not a global flag of the application; choose from context, trace',
    );
    expect((await refusal(options({ globalFlags: ['token'] }))).message).toMatch(/"token" is a hidden flag/);
    expect((await refusal(options({ globalFlags: ['help'] }))).message).toMatch(/"help" is a framework flag/);
  });
  it('fails the whole load when a leaf has no restricted schema', async () => {
    const err = await refusal(options({}, 'no-schema'));
    expect(err.code).toBe('introspect');
    expect(err.message).toMatch(/"stream ls" has no precomputed restricted schema; rebuild the application with a current fisk/);
  });
  it('refuses a broken introspection: bad JSON, non-zero exit, oversize, missing binary, name clash', async () => {
    expect((await refusal(options({}, 'invalid-json'))).message).toMatch(/answer is not JSON/);
    expect((await refusal(options({}, 'exit'))).message).toMatch(/exited with status 2: introspection is broken here/);
    expect((await refusal(options({}, 'huge'))).message).toMatch(/exceeds 16 MiB/);
    expect((await refusal(options({}, 'deep-schema'))).message).toMatch(/nests deeper than 256 levels/);
    expect((await refusal(options({ applicationPath: '/nonexistent/app' }))).message).toMatch(/cannot be started/);
    const clash = await refusal(options({}, 'clash'));
    expect(clash.code).toBe('collision');
    expect(clash.message).toMatch(/"stream_ls" is claimed by both application commands "stream ls" and "stream_ls"/);
  });
  it('gives up on an application that does not answer, and honours an abort', async () => {
    expect((await refusal(options({ timeoutMs: 300 }, 'hang'))).message).toMatch(/did not answer within 0.3s/);
    const ac = new AbortController();
    const pidlog = join(mkdtempSync(join(tmpdir(), 'fisk-hang-')), 'pids');
    const base = options({ signal: ac.signal }, 'hang');
    const loading = loadApplicationTools({ ...base, env: { ...base.env, FIXTURE_PIDLOG: pidlog } });
    // aborted while the application runs, not before it started
    const [hanging] = await awaitLoggedPids(pidlog, 1);
    ac.abort(new Error('operator stopped'));
    await expect(loading).rejects.toThrow('operator stopped');
    expect(alive(hanging as number)).toBe(false);
    rmSync(join(pidlog, '..'), { recursive: true, force: true });
  });
  it('cleans terminal sequences out of the excerpt of a broken answer and of its stderr', async () => {
    const message = (await refusal(options({}, 'invalid-escape'))).message;
    expect(message).toMatch(/answer is not JSON/);
    expect(message.includes('\u001b') || message.includes('\u0007')).toBe(false);
    // the fixture's stderr for a failing exit is coloured and retitles the window
    const exit = (await refusal(options({}, 'exit'))).message;
    expect(exit).toMatch(/introspection is broken here/);
    expect(exit.includes('\u001b') || exit.includes('\u0007') || exit.includes('retitled')).toBe(false);
  });
  describe('with a descendant that left the process group holding stdout', () => {
    let dir = '';
    function withPidFile(extra: Partial<LoadApplicationOptions>, mode: string): LoadApplicationOptions {
      dir = mkdtempSync(join(tmpdir(), 'fisk-introspect-'));
      const base = options(extra, mode);
      return { ...base, env: { ...base.env, FIXTURE_PIDFILE: join(dir, 'pid') } };
    }
    async function killDetached(): Promise<void> {
      const file = join(dir, 'pid');
      for (let i = 0; i < 2000 && !existsSync(file); i++) await new Promise((r) => setTimeout(r, 5));
      if (existsSync(file)) {
        try {
          process.kill(Number(readFileSync(file, 'utf8').trim()), 'SIGKILL');
        } catch {
          // already gone
        }
      }
      rmSync(dir, { recursive: true, force: true });
    }
    it('decodes what the application wrote once it has exited', async () => {
      try {
        const loaded = await loadApplicationTools(withPidFile({}, 'detached'));
        expect(loaded.source.tools.map((t) => t.name)).toContain('stream_ls');
      } finally {
        await killDetached();
      }
    });
    it('keeps its deadline and honours an abort', async () => {
      try {
        expect((await refusal(withPidFile({ timeoutMs: 300 }, 'detached-hang'))).message).toMatch(/did not answer within 0.3s/);
      } finally {
        await killDetached();
      }
      const ac = new AbortController();
      const loading = loadApplicationTools(withPidFile({ signal: ac.signal }, 'detached-hang'));
      // aborted once the descendant holds the output, which it says by writing its pid
      await eventually(() => existsSync(join(dir, 'pid')), 'the detached descendant to write its pid');
      ac.abort(new Error('operator stopped'));
      try {
        await expect(loading).rejects.toThrow('operator stopped');
      } finally {
        await killDetached();
      }
    }, 90_000);
  });
  it('refuses an invalid include pattern naming the key', async () => {
    expect((await refusal(options({ include: { tools: ['[a'], tags: [] } }))).message).toMatch(/^include\.tools: "\[a"/);
  });
});

describe('an introspection started ahead of the load', () => {
  let dir = '';
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'fisk-early-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  /** The options of `options()`, with every introspection logging its pid. */
  function logged(extra: Partial<LoadApplicationOptions> = {}, mode = ''): LoadApplicationOptions {
    const base = options(extra, mode);
    return { ...base, env: { ...base.env, FIXTURE_PIDLOG: join(dir, 'pids') } };
  }
  const pids = (): number[] => loggedPids(join(dir, 'pids'));
  const awaitPids = (n: number): Promise<number[]> => awaitLoggedPids(join(dir, 'pids'), n);
  async function messageOf(loading: Promise<unknown>): Promise<string> {
    try {
      await loading;
    } catch (err) {
      expect(err).toBeInstanceOf(ToolkitError);
      return (err as Error).message;
    }
    throw new Error('expected the load to fail');
  }

  it('is used when the load would run exactly the same command, which then runs once', async () => {
    const pending = startApplicationIntrospection(logged());
    expect(pending).toBeDefined();
    const early = await loadApplicationTools({ ...logged(), ...(pending === undefined ? {} : { pending }) });
    // taken by the load, not discarded: the application ran once
    await expect(pending?.claim()).rejects.toThrow(/claimed before/);
    expect(pids()).toHaveLength(1);
    rmSync(join(dir, 'pids'));
    const plain = await loadApplicationTools(logged());
    expect(early.model).toEqual(plain.model);
    expect(early.source.tools.map((t) => t.name)).toEqual(plain.source.tools.map((t) => t.name));
    expect(early.globalFlags).toEqual(plain.globalFlags);
  });
  it('is killed and run again when the environment, the credentials, the binary or the deadline differ', async () => {
    const variants: [Partial<LoadApplicationOptions>, string][] = [
      [{}, 'exit'], // another environment: this one would fail
      [{ credentialEnvNames: ['ANTHROPIC_API_KEY'] }, ''], // MY_SECRET would reach the application
      [{ applicationPath: join(dir, 'other-app') }, ''],
      [{ timeoutMs: 5000 }, ''],
    ];
    writeFileSync(join(dir, 'other-app'), `#!/bin/sh\necho $$ >> "$FIXTURE_PIDLOG"\nexec sleep 60\n`, { mode: 0o755 });
    for (const [extra, mode] of variants) {
      rmSync(join(dir, 'pids'), { force: true });
      const pending = startApplicationIntrospection(logged(extra, mode));
      if (pending === undefined) throw new Error('nothing started');
      const [first] = await awaitPids(1);
      const loaded = await loadApplicationTools({ ...logged(), pending });
      expect(loaded.source.tools.map((t) => t.name)).toContain('stream_ls');
      const all = await awaitPids(2);
      expect(all).toHaveLength(2);
      expect(alive(first as number)).toBe(false);
      // the second one answered this load; it is not claimed a second time
      await expect(pending.claim()).rejects.toThrow(/discarded/);
    }
  });
  it('gives the errors the load gives without it: a failing answer, a deadline, an abort', async () => {
    for (const mode of ['exit', 'invalid-json', 'no-schema']) {
      const pending = startApplicationIntrospection(logged({}, mode));
      const early = await messageOf(loadApplicationTools({ ...logged({}, mode), ...(pending === undefined ? {} : { pending }) }));
      expect(early).toBe(await messageOf(loadApplicationTools(logged({}, mode))));
    }
    const missing = { applicationPath: '/nonexistent/app' };
    const pendingMissing = startApplicationIntrospection(logged(missing));
    expect(
      await messageOf(loadApplicationTools({ ...logged(missing), ...(pendingMissing === undefined ? {} : { pending: pendingMissing }) })),
    ).toBe(await messageOf(loadApplicationTools(logged(missing))));
    const pendingHang = startApplicationIntrospection(logged({ timeoutMs: 300 }, 'hang'));
    const hung = await messageOf(
      loadApplicationTools({ ...logged({ timeoutMs: 300 }, 'hang'), ...(pendingHang === undefined ? {} : { pending: pendingHang }) }),
    );
    expect(hung).toMatch(/did not answer within 0.3s/);
    expect(pids()).toHaveLength(7); // two for each failing answer, one for the deadline: the early ones ran once
    expect(pids().every((pid) => !alive(pid))).toBe(true);

    rmSync(join(dir, 'pids'));
    const ac = new AbortController();
    const pendingAbort = startApplicationIntrospection(logged({}, 'hang'));
    const loading = loadApplicationTools({
      ...logged({ signal: ac.signal }, 'hang'),
      ...(pendingAbort === undefined ? {} : { pending: pendingAbort }),
    });
    const [hanging] = await awaitPids(1);
    expect(alive(hanging as number)).toBe(true);
    ac.abort(new Error('operator stopped'));
    await expect(loading).rejects.toThrow('operator stopped');
    expect(alive(hanging as number)).toBe(false);
  });
  it('leaves no application running when it is discarded or the load stops before introspecting', async () => {
    const pending = startApplicationIntrospection(logged({}, 'hang'));
    if (pending === undefined) throw new Error('nothing started');
    const [pid] = await awaitPids(1);
    expect(alive(pid as number)).toBe(true);
    await pending.discard();
    expect(alive(pid as number)).toBe(false);
    await expect(pending.claim()).rejects.toThrow(/discarded/);

    rmSync(join(dir, 'pids'));
    const second = startApplicationIntrospection(logged({}, 'hang'));
    if (second === undefined) throw new Error('nothing started');
    const [other] = await awaitPids(1);
    // a global flag the application does not have fails the load once the answer is in; an invalid
    // filter fails it before anything runs, so nothing is started for it either
    const bad = { include: { tools: ['[a'], tags: [] } };
    expect(await messageOf(loadApplicationTools({ ...logged(bad, 'hang'), pending: second }))).toMatch(/^include\.tools: "\[a"/);
    expect(alive(other as number)).toBe(false);
    expect(startApplicationIntrospection(logged(bad))).toBeUndefined();
  });
});

describe('FiskCommandTool execution', () => {
  it('runs the command with argv only, returning an exec record', async () => {
    const loaded = await loadApplicationTools(options());
    const echo = loaded.source.tools.find((t) => t.name === 'echo') as FiskCommandTool;
    const out = await echo.execute('{"first":"a b","count":3,"color":false,"rest":["x"]}', {}, signal);
    expect(out).toMatchObject({
      status: 'completed',
      isError: false,
      exec: { command: 'echo --no-color --count=3 -- a b two x', exitCode: 0, truncated: false },
    });
    if (out.status !== 'completed') throw new Error('unreachable');
    expect(JSON.parse(out.output)).toEqual({ path: ['echo'], flags: ['--no-color', '--count=3'], positionals: ['a b', 'two', 'x'] });
  });
  it('hands shell syntax and flag look-alikes to the program as plain argv elements', async () => {
    const loaded = await loadApplicationTools(options());
    const echo = loaded.source.tools.find((t) => t.name === 'echo') as FiskCommandTool;
    const dir = mkdtempSync(join(tmpdir(), 'fisk-inject-'));
    try {
      const marker = join(dir, 'pwned');
      const first = `$(touch ${marker}); touch ${marker} \`touch ${marker}\``;
      const out = await echo.execute(JSON.stringify({ first, rest: ['--help', '-rf'] }), {}, signal);
      if (out.status !== 'completed') throw new Error('unreachable');
      expect(JSON.parse(out.output)).toMatchObject({ positionals: [first, 'two', '--help', '-rf'] });
      expect(existsSync(marker)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it('strips credentials from the environment and sets LLMFORMAT=1', async () => {
    const loaded = await loadApplicationTools(options());
    const env = loaded.source.tools.find((t) => t.name === 'env') as FiskCommandTool;
    const out = await env.execute('{}', {}, signal);
    if (out.status !== 'completed') throw new Error('unreachable');
    const seen = JSON.parse(out.output) as Record<string, string>;
    expect(seen['LLMFORMAT']).toBe('1');
    expect(seen['KEEP_ME']).toBe('yes');
    expect(seen['ANTHROPIC_API_KEY']).toBeUndefined();
    expect(seen['MY_SECRET']).toBeUndefined();
  });
  it('scrubs the credentials it holds from what a tool prints, even read from another process', async () => {
    const key = 'sk-ant-api03-LEAKED-0123456789abcdef';
    const secret = 'correct-horse-battery';
    // a process whose environment holds the credentials, as the harness's own does
    const holder = spawn('sleep', ['30'], {
      env: { PATH: process.env['PATH'], ANTHROPIC_API_KEY: key, MY_SECRET: secret },
      stdio: 'ignore',
    });
    try {
      const base = options();
      const env = { ...base.env, ANTHROPIC_API_KEY: key, MY_SECRET: secret, FIXTURE_READ_ENVIRON: String(holder.pid) };
      const loaded = await loadApplicationTools({ ...base, env });
      const echo = loaded.source.tools.find((t) => t.name === 'echo') as FiskCommandTool;
      const out = await echo.execute('{"first":"x"}', {}, signal);
      if (out.status !== 'completed') throw new Error('unreachable');
      expect(out.output).toContain('ANTHROPIC_API_KEY=[ANTHROPIC_API_KEY-REDACTED]');
      expect(out.output).toContain('MY_SECRET=[MY_SECRET-REDACTED]');
      expect(out.output).not.toContain(key);
      expect(out.output).not.toContain(secret);
    } finally {
      holder.kill('SIGKILL');
    }
  });
  it('runs in the work directory it is given, with PWD set to it', async () => {
    const loaded = await loadApplicationTools(options());
    const env = loaded.source.tools.find((t) => t.name === 'env') as FiskCommandTool;
    const workDir = tmpdir();
    const out = await env.execute('{}', { workDir }, signal);
    if (out.status !== 'completed') throw new Error('unreachable');
    expect((JSON.parse(out.output) as Record<string, string>)['PWD']).toBe(workDir);
  });
  it('returns refused and incomplete arguments to the model without running anything', async () => {
    const loaded = await loadApplicationTools(options());
    const echo = loaded.source.tools.find((t) => t.name === 'echo') as FiskCommandTool;
    expect(await echo.execute('{}', {}, signal)).toEqual({
      status: 'completed',
      output: 'missing required argument "first"',
      isError: true,
    });
    expect(await echo.execute('{"first":"a","bogus":1}', {}, signal)).toEqual({
      status: 'completed',
      output: 'unknown argument "bogus"',
      isError: true,
    });
  });
  it('treats a non-zero exit as a result and a timeout as an error naming the limit', async () => {
    const loaded = await loadApplicationTools(options());
    const get = (n: string) => loaded.source.tools.find((t) => t.name === n) as FiskCommandTool;
    expect(await get('fail').execute('{"code":4}', {}, signal)).toMatchObject({
      isError: false,
      exec: { exitCode: 4 },
      output: 'failing on purpose\n',
    });
    const slow = await get('sleep').execute('{"seconds":30}', { timeoutMs: 300 }, signal);
    expect(slow).toMatchObject({
      isError: true,
      exec: { exitCode: -1 },
      output: 'the command timed out after 300ms and was killed with its process group',
    });
  });
  it('renders a trace line with sorted flags, each argument quoted as a shell would, invisible characters spelled out', async () => {
    const loaded = await loadApplicationTools(options());
    const echo = loaded.source.tools.find((t) => t.name === 'echo') as FiskCommandTool;
    expect(echo.traceLine('{"level":"warn","count":2,"first":"a\\u001b[2Jb"}')).toBe("echo --count=2 --level=warn -- $'a\\x1b[2Jb'");
    // padding and look-alikes cannot hide where an argument ends
    expect(echo.traceLine('{"first":"TEST   stream info -- TEST   "}')).toBe("echo -- 'TEST   stream info -- TEST   '");
    expect(echo.traceLine('{"first":"prod\\u200b","rest":["a b"]}')).toBe("echo -- $'prod\\u200b' two 'a b'");
    expect(echo.traceLine('{"nope":"\\u0007x"}')).toBe('echo {"nope":"\\u0007x"}');
  });
});
