/**
 * The bundled CLI checks a2a messages with the schema checks the build wrote out, and never
 * compiles the schemas at start: a remote run (`fisk run --nats-context`, which speaks a2a over a
 * real nats-server) is watched with a hook on `require` that writes down what it loads.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNatsServer } from '../../src/agenttest/nats-server.js';
import type { NatsServer } from '../../src/agenttest/nats-server.js';
import { ensureBuilt, MAIN } from './support.js';

let dir: string;
let nats: NatsServer;

beforeAll(async () => {
  ensureBuilt();
  nats = await startNatsServer();
  dir = mkdtempSync(join(tmpdir(), 'fisk-validators-load-'));
  mkdirSync(join(dir, 'xdg', 'nats', 'context'), { recursive: true });
  writeFileSync(join(dir, 'xdg', 'nats', 'context', 'lab.json'), JSON.stringify({ url: nats.url }));
  writeFileSync(
    join(dir, 'hook.cjs'),
    `const M = require('node:module');\nconst load = M._load;\n` +
      `M._load = function (request, ...rest) {\n` +
      `  if (/validators\\.generated|ajv\\/dist\\/(2020|compile)/.test(request)) process.stderr.write('LOADED ' + request + '\\n');\n` +
      `  return load.call(this, request, ...rest);\n};\n`,
  );
}, 180_000);

afterAll(async () => {
  await nats.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('the bundled CLI', () => {
  it('loads the generated schema checks and not ajv', async () => {
    // nobody serves the agent: the prompt is encoded and checked, then refused as unavailable
    const child = spawn(
      process.execPath,
      ['--require', join(dir, 'hook.cjs'), MAIN, 'run', '--no-tui', '--nats-context', 'lab', '--identity', 'nobody', 'hi'],
      {
        cwd: dir,
        env: { PATH: process.env['PATH'], HOME: dir, XDG_CONFIG_HOME: join(dir, 'xdg'), NO_COLOR: '1' },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect(stderr).toMatch(/nobody/);
    expect(code).not.toBe(0);
    expect(stderr).toMatch(/LOADED .*dist\/a2a\/validators\.generated\.cjs/);
    expect(stderr).not.toMatch(/LOADED ajv/);
  }, 90_000);
});
