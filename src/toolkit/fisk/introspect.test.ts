import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { introspect, stderrGist } from './introspect.js';

const env = { PATH: process.env['PATH'] ?? '' };

describe('stderrGist', () => {
  it("picks an uncaught Node error's statement out of its code frame, stack and version trailer", () => {
    const stderr = [
      'node:internal/modules/esm/resolve:873',
      '  throw new ERR_MODULE_NOT_FOUND(packageName, fileURLToPath(base), null);',
      '        ^',
      '',
      "Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'commander' imported from /tmp/shop/shop.mjs",
      '    at packageResolve (node:internal/modules/esm/resolve:873:9)',
      '    at moduleResolve (node:internal/modules/esm/resolve:946:18) {',
      "  code: 'ERR_MODULE_NOT_FOUND'",
      '}',
      '',
      'Node.js v20.20.2',
      '',
    ].join('\n');
    expect(stderrGist(stderr)).toBe("Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'commander' imported from /tmp/shop/shop.mjs");
  });
  it("picks Python's exception line and a program's own error line", () => {
    expect(
      stderrGist(
        'Traceback (most recent call last):\n  File "/opt/app.py", line 3, in <module>\n    import yaml\nModuleNotFoundError: No module named \'yaml\'\n',
      ),
    ).toBe("ModuleNotFoundError: No module named 'yaml'");
    expect(stderrGist("error: unknown option '--fisk-introspect'\n")).toBe("error: unknown option '--fisk-introspect'");
    expect(stderrGist('goroutine 1 [running]:\npanic: no config found\n')).toBe('panic: no config found');
  });
  it('otherwise keeps the last three lines that say something, and bounds the length', () => {
    expect(stderrGist('starting\nloading plugins\nno plugins directory\ngiving up\n\n')).toBe(
      'loading plugins / no plugins directory / giving up',
    );
    expect(stderrGist('   \n\n')).toBe('');
    const long = stderrGist(`Error: ${'x'.repeat(1000)}`);
    expect(long.length).toBe(400);
    expect(long.endsWith('…')).toBe(true);
  });
});

describe('introspect with an application that cannot start', () => {
  let dir = '';
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'fisk-introspect-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  it('says which package a Node application could not find, not its stack trailer', async () => {
    const app = join(dir, 'app.mjs');
    writeFileSync(app, `#!${process.execPath}\nimport 'fisk-no-such-package-anywhere';\n`);
    chmodSync(app, 0o755);
    const refused = await introspect({ binary: app, env }).then(
      () => undefined,
      (err: unknown) => err as Error,
    );
    expect(refused?.message).toMatch(
      /exited with status 1: Error \[ERR_MODULE_NOT_FOUND\]: Cannot find package 'fisk-no-such-package-anywhere' imported from .*app\.mjs; is it a fisk application\?$/,
    );
  });
});
