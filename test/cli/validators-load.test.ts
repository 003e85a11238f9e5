/**
 * The bundled CLI checks a2a messages with the schema checks the build wrote out, and never
 * compiles the schemas at start: a run (hosted behind the in-process a2a transport) is watched
 * with a hook on `require` that writes down what it loads.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, MAIN } from './support.js';

let dir: string;

beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'fisk-validators-load-'));
  writeFileSync(
    join(dir, 'hook.cjs'),
    `const M = require('node:module');\nconst load = M._load;\n` +
      `M._load = function (request, ...rest) {\n` +
      `  if (/validators\\.generated|ajv\\/dist\\/(2020|compile)/.test(request)) process.stderr.write('LOADED ' + request + '\\n');\n` +
      `  return load.call(this, request, ...rest);\n};\n`,
  );
  writeFileSync(join(dir, 'agent.yaml'), 'identity: checker\nsystem_prompt: You answer.\nllm:\n  model: claude-fake-1\n');
}, 180_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the bundled CLI', () => {
  it('loads the generated schema checks and not ajv', () => {
    // nothing listens on port 9: the run stops at its first model call, after the hosted start
    const r = spawnSync(process.execPath, ['--require', join(dir, 'hook.cjs'), MAIN, 'run', '--no-tui', '--base-url', 'http://127.0.0.1:9', '--api-key', 'k', 'hi'], {
      cwd: dir,
      env: { PATH: process.env['PATH'], HOME: dir, NO_COLOR: '1' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.stderr).toMatch(/LOADED .*dist\/a2a\/validators\.generated\.cjs/);
    expect(r.stderr).not.toMatch(/LOADED ajv/);
  }, 90_000);
});
