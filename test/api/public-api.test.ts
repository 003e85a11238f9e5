/**
 * The package's public surface, read from the built entry points as an embedder's program sees
 * them: the main entry exports a small hand-written list of runtime values, each documented, and
 * nothing only the tests use is built into dist/. The full surface, types included, is the API
 * report in api/, checked by `npm run api`.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT } from '../cli/support.js';

/** The most runtime values the main entry may export, namespaces counted through. */
const MAX_RUNTIME_VALUES = 80;

const isNamespace = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && Object.prototype.toString.call(value) === '[object Module]';

/** Every runtime value a module exports, by dotted path, descending into namespaces. */
function runtimeValues(module: Record<string, unknown>, prefix = ''): string[] {
  return Object.keys(module).flatMap((name) => {
    const value = module[name];
    return isNamespace(value) ? runtimeValues(value, `${prefix}${name}.`) : [`${prefix}${name}`];
  });
}

/** The documentation comment of each dotted export path, read from the built declarations. */
function documentation(entry: string, paths: readonly string[]): Map<string, string> {
  const program = ts.createProgram([entry], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    skipLibCheck: true,
    types: ['node'],
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(entry);
  const root = source === undefined ? undefined : checker.getSymbolAtLocation(source);
  if (root === undefined) throw new Error(`cannot read the declarations ${entry}`);
  const resolveAlias = (symbol: ts.Symbol): ts.Symbol =>
    (symbol.flags & ts.SymbolFlags.Alias) !== 0 ? checker.getAliasedSymbol(symbol) : symbol;
  const docs = new Map<string, string>();
  for (const path of paths) {
    let scope = root;
    let found: ts.Symbol | undefined;
    for (const name of path.split('.')) {
      found = checker.getExportsOfModule(scope).find((s) => s.name === name);
      if (found === undefined) break;
      scope = resolveAlias(found);
    }
    docs.set(path, found === undefined ? '' : ts.displayPartsToString(resolveAlias(found).getDocumentationComment(checker)).trim());
  }
  return docs;
}

/** Every TypeScript and module file under `dir`, skipping what is built or installed. */
function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (['node_modules', 'dist', '.tmp'].includes(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The files under src/ that only tests import: test helpers, which must not be built into dist/. */
function testOnlySources(): string[] {
  const importers = new Map<string, string[]>();
  const everything = ['src', 'test', 'bench', 'scripts', 'examples'].flatMap((d) => sourceFiles(join(ROOT, d)));
  for (const file of everything) {
    for (const match of readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
      // a script reads the built file; it counts as an import of its source
      const target = relative(ROOT, resolve(dirname(file), match[1] ?? ''))
        .replace(/^dist\//, 'src/')
        .replace(/\.js$/, '.ts');
      importers.set(target, [...(importers.get(target) ?? []), relative(ROOT, file)]);
    }
  }
  const isTest = (file: string): boolean => file.endsWith('.test.ts') || file.startsWith('test/');
  // the package's entry points are imported by its users, whoever else imports them here
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    exports: Record<string, string | { import?: string }>;
  };
  const entries = new Set(
    Object.values(manifest.exports).flatMap((target) =>
      typeof target === 'string' || target.import === undefined
        ? []
        : [target.import.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts')],
    ),
  );
  return sourceFiles(join(ROOT, 'src'))
    .map((file) => relative(ROOT, file))
    .filter((file) => !isTest(file) && !entries.has(file))
    .filter((file) => {
      const by = importers.get(file) ?? [];
      return by.length > 0 && by.every(isTest);
    });
}

describe('the public API', () => {
  let values: string[] = [];
  beforeAll(async () => {
    ensureBuilt();
    const entry = (await import(pathToFileURL(join(ROOT, 'dist/index.js')).href)) as Record<string, unknown>;
    values = runtimeValues(entry);
  }, 240_000);

  it(`exports at most ${MAX_RUNTIME_VALUES} runtime values from the main entry`, () => {
    expect(values).toContain('host.openRuntime');
    expect(values).toContain('serve.startServer');
    expect(values).toContain('FiskError');
    expect(values.length).toBeLessThanOrEqual(MAX_RUNTIME_VALUES);
  });

  it('documents every runtime value it exports', () => {
    const docs = documentation(join(ROOT, 'dist/index.d.ts'), values);
    const undocumented = values.filter((path) => docs.get(path) === '');
    expect(undocumented).toEqual([]);
  });

  it('documents every runtime value of fisk-ai/agenttest', async () => {
    const entry = (await import(pathToFileURL(join(ROOT, 'dist/agenttest/index.js')).href)) as Record<string, unknown>;
    const doubles = runtimeValues(entry);
    const docs = documentation(join(ROOT, 'dist/agenttest/index.d.ts'), doubles);
    expect(doubles.filter((path) => docs.get(path) === '')).toEqual([]);
  });

  it('builds no test helper into dist/', () => {
    const helpers = testOnlySources();
    expect(helpers).toContain('src/cli/test-io.ts');
    const build = ts.getParsedCommandLineOfConfigFile(
      join(ROOT, 'tsconfig.build.json'),
      {},
      {
        ...ts.sys,
        onUnRecoverableConfigFileDiagnostic: (d) => {
          throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
        },
      },
    );
    const built = new Set((build?.fileNames ?? []).map((file) => relative(ROOT, file)));
    expect(built).toContain('src/index.ts');
    expect(helpers.filter((file) => built.has(file))).toEqual([]);
  });
});
