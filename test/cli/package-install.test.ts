/**
 * The install a person does from a checkout: pack the package, install the tarball into a prefix
 * of its own, and run the installed `fisk` from another directory. Install scripts are skipped so
 * the native SQLite module is not compiled here; `--help` and `info` do not load it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT } from './support.js';

let work: string;
let prefix: string;
let elsewhere: string;
let installLog: string;

beforeAll(() => {
  ensureBuilt();
  work = mkdtempSync(join(tmpdir(), 'fisk-pack-'));
  prefix = join(work, 'prefix');
  elsewhere = mkdtempSync(join(tmpdir(), 'fisk-elsewhere-'));
  execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', work], { cwd: ROOT, stdio: 'pipe' });
  const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'));
  if (tarball === undefined) throw new Error('npm pack wrote no tarball');
  const install = spawnSync(
    'npm',
    ['install', '-g', '--prefix', prefix, '--ignore-scripts', '--no-audit', '--no-fund', join(work, tarball)],
    {
      cwd: elsewhere,
      encoding: 'utf8',
    },
  );
  installLog = `${install.stdout}${install.stderr}`;
  if (install.status !== 0) throw new Error(`npm install failed:\n${installLog}`);
}, 900_000);

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
  rmSync(elsewhere, { recursive: true, force: true });
});

function fisk(args: readonly string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(join(prefix, 'bin', 'fisk'), [...args], { cwd: elsewhere, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('fisk installed from a packed tarball', () => {
  it('installs without an engine warning on this Node', () => {
    expect(installLog).not.toMatch(/EBADENGINE/);
  });

  it('runs fisk --help from another directory', () => {
    const r = fisk(['--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^Usage: fisk /);
  });

  it('runs fisk info on an example from another directory', () => {
    const r = fisk(['info', '--config', join(ROOT, 'docs/examples/openvox.yaml')]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('Agent OpenVOX');
  });

  it('carries @fisk-ai/app inside its own tarball and serves it as fisk-ai/app', () => {
    const installed = join(prefix, 'lib', 'node_modules', 'fisk-ai');
    const app = JSON.parse(readFileSync(join(installed, 'node_modules', '@fisk-ai', 'app', 'package.json'), 'utf8')) as {
      name: string;
      version: string;
    };
    const own = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(app.name).toBe('@fisk-ai/app');
    expect(app.version).toBe(own.dependencies['@fisk-ai/app']);
    const probe =
      "const app = await import('fisk-ai/app'); process.stdout.write(typeof app.answerIntrospection + ' ' + app.INTROSPECT_FLAG);";
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', probe], { cwd: join(prefix, 'lib'), encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('function --fisk-introspect');
  });

  it('ships the README and the docs beside the program', () => {
    const installed = join(prefix, 'lib', 'node_modules', 'fisk-ai');
    expect(readFileSync(join(installed, 'README.md'), 'utf8')).toContain('# fisk-ai');
    expect(readdirSync(join(installed, 'docs'))).toContain('tools.md');
  });
});
