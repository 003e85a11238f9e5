import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.js';
import { alive, runningWithCommandLine, until } from '../support/processes.js';
import { ensureBuilt, startFisk } from './support.js';

// An application that never answers its introspection: it writes its pid and sleeps. It runs in a
// process group of its own, so only fisk can stop it when the operator presses Ctrl-C.
let dir: string;
beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'fisk-interrupt-'));
  writeFileSync(join(dir, 'app.sh'), `#!/bin/sh\necho $$ > "${join(dir, 'app.pid')}"\nexec sleep 60\n`);
  chmodSync(join(dir, 'app.sh'), 0o755);
  writeFileSync(
    join(dir, 'agent.yaml'),
    'identity: hang\napplication_path: ./app.sh\nsystem_prompt: Answer.\nllm:\n  provider: anthropic\n  model: claude-sonnet-4-6\n',
  );
}, 240_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function interruptWhileIntrospecting(args: readonly string[]): Promise<{ code: number | null; stderr: string; pid: number }> {
  const pidFile = join(dir, 'app.pid');
  rmSync(pidFile, { force: true });
  const f = startFisk(args, dir, { PATH: process.env['PATH'] ?? '', HOME: dir, NO_COLOR: '1', ANTHROPIC_API_KEY: 'test-key' });
  await until(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '', 'the application to start');
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  f.child.kill('SIGINT');
  const code = await f.exited;
  return { code, stderr: f.stderr, pid };
}

describe('Ctrl-C while the application is introspected', () => {
  it('stops fisk info with status 130 and leaves the application not running', async () => {
    const r = await interruptWhileIntrospecting(['info', '--config', 'agent.yaml']);
    expect(r.code).toBe(EXIT.aborted);
    expect(r.stderr).toContain('interrupted');
    await until(() => !alive(r.pid), 'the application to be stopped');
  }, 60_000);

  it('stops fisk run with status 130 and leaves the application not running', async () => {
    const r = await interruptWhileIntrospecting(['run', '--config', 'agent.yaml', 'hello']);
    expect(r.code).toBe(EXIT.aborted);
    expect(r.stderr).toContain('interrupted while loading the tools');
    await until(() => !alive(r.pid), 'the application to be stopped');
  }, 60_000);
});

// The application starts from the file before the configuration is checked; a refused
// configuration must not leave it running. This application keeps its shell (no exec), so its
// command line names its script whether or not it got as far as anything else.
describe('a refused configuration that names an application', () => {
  for (const args of [['info'], ['run', 'hello']]) {
    it(`stops fisk ${args[0]} with the configuration's error and leaves the application not running`, async () => {
      const script = join(dir, `refused-${args[0]}.sh`);
      writeFileSync(script, `#!/bin/sh\nwhile :; do sleep 1; done\n`);
      chmodSync(script, 0o755);
      writeFileSync(
        join(dir, 'refused.yaml'),
        `identity: hang\napplication_path: ${script}\nsystem_prompt: Answer.\nbogus_key: 1\nllm:\n  provider: anthropic\n  model: claude-sonnet-4-6\n`,
      );
      const f = startFisk([...args, '--config', 'refused.yaml'], dir, {
        PATH: process.env['PATH'] ?? '',
        HOME: dir,
        NO_COLOR: '1',
        ANTHROPIC_API_KEY: 'test-key',
      });
      expect(await f.exited).toBe(EXIT.config);
      expect(f.stderr).toContain('bogus_key');
      await until(() => runningWithCommandLine(script).length === 0, 'the application to be stopped');
    }, 60_000);
  }
});
