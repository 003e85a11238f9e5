/**
 * The sandbox with the real bubblewrap: what a child may write, read and reach, and that a
 * sandbox which cannot start never runs the program outside it. These run as whatever user the
 * tests run as, root included: a read-only bind and dropped capabilities hold for root too.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { introspect } from '../fisk/introspect.js';
import { runCaptured } from '../fisk/run-captured.js';
import type { RunResult } from '../fisk/run-captured.js';
import { checkSandbox } from './check.js';
import { sandboxedCommand } from './command-line.js';
import { introspectionPolicy, reportTool, toolPolicy } from './policy.js';
import type { SandboxPolicy, SandboxSettings } from './policy.js';

const signal = new AbortController().signal;
let root: string;
let home: string;
let work: string;
let outside: string;
let settings: SandboxSettings;
let server: Server;
let port: number;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'fisk-sandbox-'));
  home = join(root, 'home');
  work = join(root, 'work');
  // outside /tmp, which is private inside anyway: a directory the sandbox sees read-only
  outside = mkdtempSync('/var/tmp/fisk-sandbox-outside-');
  for (const d of [home, work, join(home, '.ssh'), join(home, 'granted')]) mkdirSync(d, { recursive: true });
  writeFileSync(join(home, '.ssh', 'id_rsa'), '-----BEGIN OPENSSH PRIVATE KEY-----\nsecret-key-material\n');
  writeFileSync(join(home, '.netrc'), 'machine example.com password hunter2\n');
  const programs = checkSandbox({ PATH: process.env['PATH'] }, 'harness.sandbox.enabled', true);
  settings = {
    enabled: true,
    ...programs,
    network: false,
    writable: undefined,
    hide: [join(home, '.ssh'), join(home, '.netrc'), join(home, '.aws')],
    limits: { addressSpace: undefined, cpuSeconds: undefined, openFiles: undefined },
    grants: [{ tools: ['^net_'], network: true, writable: [join(home, 'granted')] }],
  };
  server = createServer((s) => s.end('hello from the host\n'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  port = typeof address === 'object' && address !== null ? address.port : 0;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

function sh(script: string, policy: SandboxPolicy): Promise<RunResult> {
  return runCaptured({
    binary: '/bin/sh',
    argv: ['-c', script],
    env: { PATH: process.env['PATH'] ?? '', HOME: home },
    cwd: work,
    signal,
    sandbox: policy,
  });
}

function node(script: string, policy: SandboxPolicy): Promise<RunResult> {
  return runCaptured({
    binary: process.execPath,
    argv: ['-e', script],
    env: { PATH: process.env['PATH'] ?? '', HOME: home },
    cwd: work,
    signal,
    sandbox: policy,
  });
}

const connect = (p: number): string =>
  `const s=require('net').connect(${p},'127.0.0.1');s.on('data',d=>{process.stdout.write(String(d));process.exit(0)});s.on('error',e=>{console.log('refused '+e.code);process.exit(9)})`;

describe('a sandboxed command', () => {
  it('writes in the work directory, and a write anywhere else fails inside and leaves nothing behind', async () => {
    const target = join(outside, 'escaped.txt');
    const r = await sh(
      `echo kept > ${work}/kept.txt && echo wrote-work; echo leaked > ${target} || echo refused; echo x > /etc/fisk-sandbox-test || echo refused-etc`,
      toolPolicy(settings, 'plain'),
    );
    expect(r).toMatchObject({ kind: 'exited', exitCode: 0 });
    if (r.kind !== 'exited') throw new Error('unreachable');
    expect(r.output).toMatch(/wrote-work/);
    expect(r.output).toMatch(/Read-only file system[\s\S]*refused\n[\s\S]*refused-etc/);
    expect(existsSync(join(work, 'kept.txt'))).toBe(true);
    expect(existsSync(target)).toBe(false);
    expect(existsSync('/etc/fisk-sandbox-test')).toBe(false);
  });

  it('reads nothing of a hidden directory or file, and cannot unmount what hides them', async () => {
    const r = await sh(
      'cat ~/.ssh/id_rsa; ls -A ~/.ssh | wc -l; cat ~/.netrc; umount ~/.ssh; cat ~/.ssh/id_rsa; echo done',
      toolPolicy(settings, 'plain'),
    );
    if (r.kind !== 'exited') throw new Error(`unexpected ${r.kind}`);
    expect(r.output).not.toMatch(/secret-key-material|hunter2/);
    expect(r.output).toMatch(/^0$/m);
    expect(r.output).toMatch(/done\n$/);
  });

  it('has no network by default, so a port on the host loopback is out of reach', async () => {
    const r = await node(connect(port), toolPolicy(settings, 'plain'));
    expect(r).toMatchObject({ kind: 'exited', exitCode: 9 });
    if (r.kind !== 'exited') throw new Error('unreachable');
    expect(r.output).toMatch(/refused/);
  });

  it('reaches the network, and writes a granted path, only for a tool whose name an operator grant matches', async () => {
    const r = await node(
      `require('fs').writeFileSync(${JSON.stringify(join(home, 'granted', 'g.txt'))},'g');${connect(port)}`,
      toolPolicy(settings, 'net_fetch'),
    );
    expect(r).toMatchObject({ kind: 'exited', exitCode: 0, output: 'hello from the host\n' });
    expect(existsSync(join(home, 'granted', 'g.txt'))).toBe(true);
    expect(reportTool(settings, 'net_fetch')).toEqual({
      network: true,
      writable: ['<work directory>', join(home, 'granted')],
      hide: settings.hide,
      grants: [0],
    });
    expect(reportTool(settings, 'fetch_net')).toMatchObject({ network: false, writable: ['<work directory>'], grants: [] });
  });

  it('runs in namespaces of its own: its own PID 1, a private /tmp', async () => {
    writeFileSync(join(tmpdir(), 'fisk-sandbox-host-file'), 'host');
    const r = await sh('echo pid=$$; ls /tmp | wc -l', toolPolicy(settings, 'plain'));
    rmSync(join(tmpdir(), 'fisk-sandbox-host-file'));
    if (r.kind !== 'exited') throw new Error(`unexpected ${r.kind}`);
    expect(r.output).toMatch(/^pid=\d{1,2}$/m);
    // the work directory's own parents are the only things under the private /tmp
    expect(r.output).not.toMatch(/fisk-sandbox-host-file/);
  });

  it('makes a TMPDIR under /tmp again, empty and writable, in its private /tmp', async () => {
    const r = await runCaptured({
      binary: '/bin/sh',
      argv: ['-c', 'ls -A "$TMPDIR" | wc -l; echo t > "$TMPDIR/t" && echo ok'],
      env: { PATH: process.env['PATH'] ?? '', TMPDIR: join(root, 'private-tmp') },
      cwd: work,
      signal,
      sandbox: toolPolicy(settings, 'plain'),
    });
    expect(r).toMatchObject({ kind: 'exited', exitCode: 0, output: '0\nok\n' });
    expect(existsSync(join(root, 'private-tmp'))).toBe(false);
  });

  it('is killed with everything it started when the call times out, as without a sandbox', async () => {
    const r = await runCaptured({
      binary: '/bin/sh',
      argv: ['-c', 'sleep 31.4159 & sleep 31.4159'],
      env: { PATH: process.env['PATH'] ?? '' },
      cwd: work,
      signal,
      timeoutMs: 300,
      sandbox: toolPolicy(settings, 'plain'),
    });
    expect(r.kind).toBe('timed_out');
    const left = (): string[] =>
      readdirSync('/proc')
        .filter((p) => /^\d+$/.test(p))
        .filter((p) => {
          try {
            return readFileSync(`/proc/${p}/cmdline`, 'utf8') === 'sleep\u000031.4159\u0000';
          } catch {
            return false;
          }
        });
    // the kernel reaps killed processes asynchronously: look a bounded number of times
    for (let i = 0; i < 2000 && left().length > 0; i++) await new Promise((done) => setImmediate(done));
    expect(left()).toEqual([]);
  });

  it('applies the resource limits through prlimit', async () => {
    const limited = { ...settings, limits: { addressSpace: undefined, cpuSeconds: 7, openFiles: 64 } };
    const r = await sh('ulimit -n; ulimit -t', toolPolicy(limited, 'plain'));
    expect(r).toMatchObject({ kind: 'exited', exitCode: 0, output: '64\n7\n' });
  });

  it('is an error result, never an unsandboxed run, when the sandbox cannot be set up', async () => {
    const marker = join(outside, 'ran-anyway');
    const missing = await sh(`touch ${marker}`, { ...toolPolicy(settings, 'plain'), writable: [join(root, 'no-such-dir')] });
    expect(missing).toMatchObject({ kind: 'failed' });
    if (missing.kind !== 'failed') throw new Error('unreachable');
    expect(missing.message).toMatch(/no-such-dir" does not exist/);
    // a failure inside bubblewrap itself: our /proc/<pid> cannot be bound into a PID namespace where it does not exist
    const broken = await sh(`touch ${marker}`, { ...toolPolicy(settings, 'plain'), writable: [`/proc/${process.pid}`] });
    expect(broken).toMatchObject({ kind: 'failed' });
    if (broken.kind !== 'failed') throw new Error('unreachable');
    expect(broken.message).toMatch(/^the sandbox could not start \/bin\/sh, so it did not run: bwrap: Can't mkdir/);
    expect(existsSync(marker)).toBe(false);
  });
});

describe('a sandboxed introspection', () => {
  it('has nothing writable, not even the work directory', async () => {
    const app = join(root, 'introspect-writes.sh');
    writeFileSync(app, `#!/bin/sh\necho x > ${work}/introspected.txt || exit 4\necho '{}'\n`);
    chmodSync(app, 0o755);
    const run = introspect({ binary: app, env: { PATH: process.env['PATH'] ?? '' }, sandbox: introspectionPolicy(settings) });
    await expect(run).rejects.toThrow(/exited with status 4/);
    expect(existsSync(join(work, 'introspected.txt'))).toBe(false);
  });
});

describe('an application file without execute permission', () => {
  const app = (): string => {
    const file = join(root, 'not-executable.sh');
    writeFileSync(file, `#!/bin/sh\necho '{}'\n`);
    chmodSync(file, 0o644);
    return file;
  };

  it('is named as the cause of a failed introspection, with chmod +x, not the sandbox settings', async () => {
    const file = app();
    const run = introspect({ binary: file, env: { PATH: process.env['PATH'] ?? '' }, sandbox: introspectionPolicy(settings) });
    await expect(run).rejects.toThrow(`${file} is not executable; make it so with chmod +x ${file} (harness.sandbox is not the cause)`);
  });

  it('is named as the cause of a failed command', async () => {
    const file = app();
    const r = await runCaptured({
      binary: file,
      argv: [],
      env: { PATH: process.env['PATH'] ?? '' },
      cwd: work,
      signal,
      sandbox: toolPolicy(settings, 'plain'),
    });
    expect(r).toMatchObject({ kind: 'failed' });
    if (r.kind !== 'failed') throw new Error('unreachable');
    expect(r.message).toMatch(
      /^the sandbox could not start .*not-executable\.sh, so it did not run: bwrap: execvp .*: Permission denied; .*not-executable\.sh is not executable; make it so with chmod \+x /,
    );
  });

  it('leaves the sandbox settings named when the file is executable and the sandbox itself failed', async () => {
    const broken = await sh('true', { ...toolPolicy(settings, 'plain'), writable: [`/proc/${process.pid}`] });
    if (broken.kind !== 'failed') throw new Error(`expected a failed start, got ${broken.kind}`);
    expect(broken.message).toMatch(/; check harness\.sandbox$/);
  });
});

describe('the command line', () => {
  it('binds / read-only, the writable paths after /tmp, the hidden ones last, and ends with the program argv untouched', () => {
    const cmd = sandboxedCommand({ binary: '/bin/echo', argv: ['--', '$(id)', 'a b'] }, toolPolicy(settings, 'plain'), work);
    expect(cmd.binary).toBe(settings.bwrap);
    const a = cmd.argv;
    expect(a.slice(a.indexOf('--ro-bind'), a.indexOf('--ro-bind') + 3)).toEqual(['--ro-bind', '/', '/']);
    expect(a).toContain('--unshare-net');
    expect(a).toContain('--die-with-parent');
    expect(a.indexOf('--tmpfs')).toBeLessThan(a.indexOf('--bind'));
    expect(a.lastIndexOf('--bind')).toBeLessThan(a.indexOf(join(home, '.ssh')));
    expect(a.slice(a.lastIndexOf('/bin/echo'))).toEqual(['/bin/echo', '--', '$(id)', 'a b']);
    expect(a).not.toContain(join(home, '.aws'));
  });

  it('keeps a program under /tmp visible with the project holding its node_modules, read-only', () => {
    const project = mkdtempSync('/tmp/fisk-sandbox-project-');
    try {
      mkdirSync(join(project, 'node_modules', 'dep'), { recursive: true });
      mkdirSync(join(project, 'examples', 'app'), { recursive: true });
      const program = join(project, 'examples', 'app', 'app.mjs');
      writeFileSync(program, '#!/usr/bin/env node\n');
      const a = sandboxedCommand({ binary: program, argv: [] }, toolPolicy(settings, 'plain'), work).argv;
      const kept = realpathSync(project);
      const at = a.findIndex((x, i) => x === '--ro-bind' && a[i + 1] === kept);
      expect(at).toBeGreaterThan(a.indexOf('--tmpfs'));
      expect(a[at + 2]).toBe(kept);
      // without node_modules above it, only the program's own directory is kept
      rmSync(join(project, 'node_modules'), { recursive: true });
      const b = sandboxedCommand({ binary: program, argv: [] }, toolPolicy(settings, 'plain'), work).argv;
      expect(b).not.toContain(kept);
      expect(b).toContain(realpathSync(join(project, 'examples', 'app')));
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });

  it('keeps the network namespace only when granted', () => {
    expect(sandboxedCommand({ binary: '/bin/true', argv: [] }, toolPolicy(settings, 'net_x'), work).argv).not.toContain('--unshare-net');
  });
});

describe('the start-up check', () => {
  it('stops with the key and how to install bubblewrap when bwrap is not on PATH', () => {
    expect(() => checkSandbox({ PATH: join(root, 'empty-bin') }, 'harness.sandbox.enabled', false)).toThrow(
      /harness\.sandbox\.enabled: bubblewrap \(bwrap\) is not on PATH; install bubblewrap \(Debian and Ubuntu: apt-get install bubblewrap/,
    );
  });
  it('refuses a platform other than Linux', () => {
    expect(() => checkSandbox({ PATH: process.env['PATH'] }, 'mcp_clients[0].sandbox', false, 'darwin')).toThrow(
      /mcp_clients\[0\]\.sandbox: the sandbox runs on Linux only/,
    );
  });
  it('names the key when bwrap cannot create namespaces', () => {
    const fake = join(root, 'fake-bin');
    mkdirSync(fake, { recursive: true });
    writeFileSync(join(fake, 'bwrap'), '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n');
    chmodSync(join(fake, 'bwrap'), 0o755);
    expect(() => checkSandbox({ PATH: fake }, 'harness.sandbox.enabled', false)).toThrow(
      /harness\.sandbox\.enabled: bubblewrap .* cannot create the sandbox's namespaces here \(bwrap: No permissions to create new namespace\)/,
    );
  });
});
