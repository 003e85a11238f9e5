/**
 * What an application author gets: this package packed and installed alone into an empty
 * directory, offline (a tarball without dependencies needs no registry), and then used by a
 * program that has no commander either, since the package reads commands structurally.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));

interface InstalledPackage {
  readonly version?: string;
  readonly hasInstallScript?: boolean;
}

/** npm's environment without what an enclosing `npm test` set, so the install sees only its flags. */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith('npm_')));
}

let work: string;
let project: string;
let installLog: string;

beforeAll(() => {
  if (!existsSync(join(PACKAGE, 'dist', 'index.js'))) throw new Error('packages/app/dist is missing; run npm run build');
  work = mkdtempSync(join(tmpdir(), 'fisk-app-pack-'));
  project = join(work, 'project');
  mkdirSync(project);
  // the build already ran; packing must not rebuild dist under tests that read it
  execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', work], { cwd: PACKAGE, stdio: 'pipe', env: cleanEnv() });
  const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'));
  if (tarball === undefined) throw new Error('npm pack wrote no tarball');
  const install = spawnSync('npm', ['install', '--prefix', project, '--offline', '--no-audit', '--no-fund', join(work, tarball)], {
    cwd: project,
    encoding: 'utf8',
    env: cleanEnv(),
  });
  installLog = `${install.stdout}${install.stderr}`;
  if (install.status !== 0) throw new Error(`npm install failed:\n${installLog}`);
}, 120_000);

afterAll(() => {
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

describe('@fisk-ai/app installed alone from its tarball', () => {
  it('declares no runtime dependencies of any kind', () => {
    const manifest = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')) as Record<string, unknown>;
    for (const field of ['dependencies', 'optionalDependencies', 'peerDependencies', 'bundleDependencies', 'bundledDependencies']) {
      expect(manifest[field], field).toBeUndefined();
    }
    expect(manifest.scripts).not.toHaveProperty('install');
    expect(manifest.scripts).not.toHaveProperty('postinstall');
    expect(manifest.scripts).not.toHaveProperty('preinstall');
  });

  it('installs fewer than 5 packages, none with an install script or native code to build', () => {
    const lock = JSON.parse(readFileSync(join(project, 'node_modules', '.package-lock.json'), 'utf8')) as {
      packages: Record<string, InstalledPackage>;
    };
    const installed = Object.keys(lock.packages);
    expect(installed).toEqual(['node_modules/@fisk-ai/app']);
    expect(installed.length).toBeLessThan(5);
    for (const [path, entry] of Object.entries(lock.packages)) {
      expect(entry.hasInstallScript, path).toBeUndefined();
      expect(existsSync(join(project, path, 'binding.gyp')), path).toBe(false);
    }
    expect(installLog).toMatch(/added 1 package/);
  });

  it('ships the built module, its types and the README, and no sources or tests', () => {
    const root = join(project, 'node_modules', '@fisk-ai', 'app');
    expect(readdirSync(root).sort()).toEqual(['README.md', 'dist', 'package.json']);
    const dist = readdirSync(join(root, 'dist'));
    expect(dist).toContain('index.js');
    expect(dist).toContain('index.d.ts');
    expect(dist.filter((f) => f.includes('test') || (f.endsWith('.ts') && !f.endsWith('.d.ts')))).toEqual([]);
  });

  it('answers --fisk-introspect for a program built without commander', () => {
    // the structural shape the package reads, written by hand: nothing else is installed here
    writeFileSync(
      join(project, 'tool.mjs'),
      `import { answerIntrospection, tagCommand } from '@fisk-ai/app';
const command = (name, description, commands = []) => ({
  name: () => name, description: () => description, summary: () => '', aliases: () => [],
  commands, options: [], registeredArguments: [],
});
const ls = tagCommand(command('ls', 'Lists things'), 'ai:read_only');
if (!answerIntrospection(command('things', 'Manages things', [ls]), { version: '1.2.3' })) console.log('ran normally');
`,
    );
    const asked = spawnSync(process.execPath, ['tool.mjs', '--fisk-introspect'], { cwd: project, encoding: 'utf8' });
    expect(asked.stderr).toBe('');
    expect(asked.status).toBe(0);
    const model = JSON.parse(asked.stdout) as {
      name: string;
      version: string;
      commands: { name: string; tags: string[]; restricted_schema: unknown }[];
    };
    expect(model).toMatchObject({ name: 'things', version: '1.2.3' });
    expect(model.commands).toEqual([
      expect.objectContaining({
        name: 'ls',
        tags: ['ai:read_only'],
        restricted_schema: { type: 'object', properties: {}, required: [], additionalProperties: false },
      }),
    ]);
    const normal = spawnSync(process.execPath, ['tool.mjs'], { cwd: project, encoding: 'utf8' });
    expect(normal.stdout).toBe('ran normally\n');
  });
});
