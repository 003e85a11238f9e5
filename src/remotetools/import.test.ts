import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAgentCard, selectExposed } from '../a2a/card.js';
import { InprocBus } from '../a2a/inproc.js';
import { createTransport } from '../a2a/registry.js';
import { startToolService } from '../a2a/tool-service.js';
import type { ServiceHandle, Transport } from '../a2a/transport.js';
import type { RemoteToolsConfig } from '../config/types.js';
import { fakeTool } from '../toolkit/test-tools.js';
import type { Outcome, Tool } from '../toolkit/tool.js';
import { RemoteToolsError } from './errors.js';
import { importRemoteTools, remoteCallTimeout, remoteFailureText, REMOTE_CALL_MARGIN_MS } from './import.js';
import { A2aError } from '../a2a/errors.js';
import { nameRemoteTools } from './naming.js';

const exposed = { exposure: { mcp: false, a2a: true } } as const;
const seen: Array<Record<string, unknown>> = [];
const cmd = (name: string, exitCode: number): Tool =>
  fakeTool(name, {
    ...exposed,
    inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    validateRequired: false,
    handler: (input): Promise<Outcome> => {
      seen.push(input);
      return Promise.resolve({
        status: 'completed',
        output: `listing of ${String(input['path'])}`,
        exec: { command: `${name} ${String(input['path'])}`, exitCode, truncated: exitCode > 1 },
        isError: false,
      });
    },
  });

const host = (name: string, extra: Partial<RemoteToolsConfig> = {}): RemoteToolsConfig => ({
  name,
  alias: name,
  include: { tools: [], tags: [] },
  exclude: { tools: [], tags: [] },
  ...extra,
});

let bus: InprocBus;
let caller: Transport;
const services: ServiceHandle[] = [];
const peerTools: Record<string, Tool[]> = {
  alpha: [cmd('ls', 0), cmd('status', 2), cmd('deploy', 0)],
  beta: [cmd('status', 0), cmd('logs', 1), cmd('alpha_status', 0)],
  empty: [],
};

beforeAll(async () => {
  bus = new InprocBus();
  caller = createTransport('inproc', { bus, timeoutMs: 2000 });
  for (const [identity, tools] of Object.entries(peerTools)) {
    const sel = selectExposed(tools).exposed;
    services.push(
      await startToolService(createTransport('inproc', { bus }), {
        identity,
        card: buildAgentCard({ name: identity, version: '1', tools: sel }),
        tools: sel,
      }),
    );
  }
});
afterAll(async () => {
  for (const s of services) await s.stop();
});

const names = (r: Awaited<ReturnType<typeof importRemoteTools>>): string[][] => r.sources.map((s) => s.tools.map((t) => t.name));

describe('importing remote tools', () => {
  it('names globally: shared and local-clashing names are prefixed, residual collisions skipped on both sides', async () => {
    const r = await importRemoteTools(caller, [host('alpha'), host('beta')], { localNames: ['ls'], mode: 'lenient', identity: 'me' });
    // status is on both hosts: both prefixed; alpha_status then collides with beta's own alpha_status: both skipped
    expect(names(r)).toEqual([
      ['alpha_ls', 'deploy'],
      ['beta_status', 'logs'],
    ]);
    expect(r.filtered.map((f) => [f.label, f.name, f.reason])).toEqual([
      ['alpha', 'alpha_status', 'collision'],
      ['beta', 'alpha_status', 'collision'],
    ]);
    expect(r.sources.map((s) => [s.source, s.label])).toEqual([
      ['a2a', 'alpha'],
      ['a2a', 'beta'],
    ]);
  });

  it('is deterministic: the same inputs give the same names', async () => {
    const a = await importRemoteTools(caller, [host('alpha'), host('beta')], { localNames: ['ls'], mode: 'lenient', identity: 'me' });
    const b = await importRemoteTools(caller, [host('alpha'), host('beta')], { localNames: ['ls'], mode: 'lenient', identity: 'me' });
    expect(names(a)).toEqual(names(b));
    expect(
      nameRemoteTools(
        [
          { host: 'a', alias: 'x', remoteName: 't' },
          { host: 'b', alias: 'y', remoteName: 't' },
        ],
        new Set(),
      ).map((n) => n.name),
    ).toEqual(['x_t', 'y_t']);
  });

  it('sends the remote name, shows the local one, and rebuilds the result a local command gives', async () => {
    const r = await importRemoteTools(caller, [host('alpha')], { localNames: ['ls'], mode: 'strict', identity: 'me' });
    const tool = r.sources[0]?.tools.find((t) => t.name === 'alpha_ls') as Tool;
    const signal = new AbortController().signal;
    const remote = await tool.execute('{"path":"/tmp"}', {}, signal);
    const local = await cmd('ls', 0).execute('{"path":"/tmp"}', {}, signal);
    expect(remote).toEqual(local);
    const status = r.sources[0]?.tools.find((t) => t.name === 'status') as Tool;
    const nonZero = await status.execute('{"path":"/"}', {}, signal);
    expect(nonZero).toEqual(await cmd('status', 2).execute('{"path":"/"}', {}, signal));
    expect(nonZero).toMatchObject({ isError: false, exec: { exitCode: 2, truncated: true } });
  });

  it('never gates an imported tool and leaves argument checks to the serving agent', async () => {
    const r = await importRemoteTools(caller, [host('alpha')], { localNames: [], mode: 'strict', identity: 'me' });
    const ls = r.sources[0]?.tools.find((t) => t.name === 'ls') as Tool;
    expect(ls.kind).toBe('remote');
    expect(ls.capabilities.gate !== null ? ls.capabilities.gate.gated : false).toBe(false);
    seen.length = 0;
    const out = await ls.execute('{}', {}, new AbortController().signal);
    // the required path was missing: nothing checked it here, and the serving agent refused it
    expect(seen).toEqual([]);
    expect(out).toMatchObject({ status: 'completed', isError: true });
    expect(out.status === 'completed' ? out.output : '').toMatch(/^invalid arguments for ls: missing required argument "path"/);
  });

  it('strict mode aborts on a host that cannot be discovered; lenient warns and lists the rest', async () => {
    const hosts = [host('alpha'), host('ghost')];
    await expect(
      importRemoteTools(caller, hosts, { localNames: [], mode: 'strict', identity: 'me', timeoutMs: 200 }),
    ).rejects.toMatchObject({ code: 'host_failed' });
    const r = await importRemoteTools(caller, hosts, { localNames: [], mode: 'lenient', identity: 'me', timeoutMs: 200 });
    expect(names(r)).toEqual([['ls', 'status', 'deploy']]);
    expect(r.warnings.map((w) => [w.code, w.host])).toEqual([['host_unavailable', 'ghost']]);
  });

  it('strict mode aborts on a residual collision', async () => {
    await expect(
      importRemoteTools(caller, [host('alpha'), host('beta')], { localNames: [], mode: 'strict', identity: 'me' }),
    ).rejects.toBeInstanceOf(RemoteToolsError);
  });

  it('filters by name, warns about include by tags and refuses exclude by tags', async () => {
    const r = await importRemoteTools(
      caller,
      [host('alpha', { include: { tools: ['^(ls|status)$'], tags: ['ops'] }, exclude: { tools: ['^status$'], tags: [] } })],
      { localNames: [], mode: 'strict', identity: 'me' },
    );
    expect(names(r)).toEqual([['ls']]);
    expect(r.filtered.map((f) => [f.name, f.reason])).toEqual([
      ['status', 'excluded'],
      ['deploy', 'not_included'],
    ]);
    expect(r.warnings.map((w) => w.code)).toEqual(['include_tags_ignored']);
    await expect(
      importRemoteTools(caller, [host('alpha', { exclude: { tools: [], tags: ['ops'] } })], {
        localNames: [],
        mode: 'lenient',
        identity: 'me',
      }),
    ).rejects.toMatchObject({ code: 'unusable_filter' });
  });

  it("waits for a call as long as the peer's advertised limit plus the margin, never longer than its own", () => {
    expect(remoteCallTimeout(120_000, 30_000)).toBe(30_000 + REMOTE_CALL_MARGIN_MS);
    expect(remoteCallTimeout(10_000, 30_000)).toBe(10_000);
    expect(remoteCallTimeout(undefined, 30_000)).toBe(30_000 + REMOTE_CALL_MARGIN_MS);
    expect(remoteCallTimeout(120_000, undefined)).toBe(120_000);
  });

  it('tells the model a call that reached nobody or was refused did not run, and a lost one may have', () => {
    const waited = { timeoutMs: 35_000, advertisedMs: 30_000 };
    for (const err of [
      new A2aError('unavailable', 'remote agent unavailable: no responders on x'),
      new A2aError('rejected', 'remote agent refused the message: 503 busy', { status: 503 }),
    ]) {
      expect(remoteFailureText('ops', 'deploy', err, waited)).toMatch(/^remote agent "ops" could not run "deploy": /);
    }
    const lost = remoteFailureText(
      'ops',
      'deploy',
      new A2aError('lost', 'remote agent did not answer: no reply on x within 35000 ms'),
      waited,
    );
    expect(lost).toMatch(
      /^remote agent "ops" did not answer the call to "deploy" within 35 s \(its own limit for a call is 30 s\): the call may or may not have run/,
    );
    // a reply that arrived but could not be read: the peer handled the call
    expect(remoteFailureText('ops', 'deploy', new A2aError('invalid', 'bad reply'), waited)).toContain('may or may not have run');
  });

  it("learns each host's advertised limit at import and gives up on a call past it", async () => {
    let release: () => void = () => undefined;
    const quiet = fakeTool('stall', {
      ...exposed,
      handler: () => new Promise<Outcome>((resolve) => (release = () => resolve({ status: 'completed', output: 'late', isError: false }))),
    });
    const svc = await startToolService(caller, {
      identity: 'stalls',
      card: buildAgentCard({ name: 'stalls', version: '1', tools: [quiet] }),
      tools: [quiet],
      toolTimeoutMs: 60_000,
    });
    try {
      const r = await importRemoteTools(caller, [host('stalls')], { localNames: [], mode: 'strict', identity: 'me', timeoutMs: 300 });
      const out = await r.sources[0]!.tools[0]!.execute('{}', {}, new AbortController().signal);
      expect(out).toMatchObject({ status: 'completed', isError: true });
      expect(out.status === 'completed' ? out.output : '').toMatch(
        /did not answer the call to "stall" within 0\.3 s \(its own limit for a call is 60 s\): the call may or may not have run/,
      );
    } finally {
      release();
      await svc.stop();
    }
  });

  it('warns about a host that answers but contributes nothing, filtered away or offering nothing', async () => {
    const filtered = await importRemoteTools(caller, [host('alpha', { include: { tools: ['^nothing$'], tags: [] } })], {
      localNames: [],
      mode: 'strict',
      identity: 'me',
    });
    expect(filtered.sources).toEqual([]);
    expect(filtered.warnings).toEqual([
      {
        code: 'no_tools',
        host: 'alpha',
        message: `remote agent "alpha" contributes no tools: none of the 3 tools it offers is left after remote_tools[0]'s include and exclude filters or name checks`,
      },
    ]);
    const empty = await importRemoteTools(caller, [host('empty')], { localNames: [], mode: 'strict', identity: 'me' });
    expect(empty.warnings).toEqual([
      { code: 'no_tools', host: 'empty', message: 'remote agent "empty" contributes no tools: it offers no tools' },
    ]);
    // a host that contributes is not warned about
    const some = await importRemoteTools(caller, [host('beta')], { localNames: [], mode: 'strict', identity: 'me' });
    expect(some.warnings).toEqual([]);
  });
});
