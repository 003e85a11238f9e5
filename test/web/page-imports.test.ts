/**
 * The browser page shares the server's event types and nothing else: every import that leaves web/
 * is `import type` (erased by the bundler), so a server change breaks the page's compile, never its
 * bundle. Bare package imports (the page's own libraries) are not the server's code.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../cli/support.js';

const PAGE = join(ROOT, 'web/src');

/** Imports (and re-exports, and dynamic imports) in `text` that reach outside web/ at run time. */
function runtimeImportsOutside(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const found: string[] = [];
  const outside = (spec: string): boolean =>
    spec.startsWith('.') && relative(join(ROOT, 'web'), resolve(dirname(file), spec)).startsWith('..');
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier) && outside(node.moduleSpecifier.text)) {
      // `import { type A }` still loads the module for its side effects; only `import type` is erased
      const typeOnly = node.importClause?.isTypeOnly === true;
      if (!typeOnly) found.push(node.moduleSpecifier.text);
    }
    if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier !== undefined &&
      ts.isStringLiteral(node.moduleSpecifier) &&
      outside(node.moduleSpecifier.text) &&
      !node.isTypeOnly
    ) {
      found.push(node.moduleSpecifier.text);
    }
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const arg = node.arguments[0];
      if (arg === undefined || !ts.isStringLiteral(arg) || outside(arg.text))
        found.push(arg !== undefined && ts.isStringLiteral(arg) ? arg.text : '<computed import>');
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the page shares only types with the server', () => {
  it('imports nothing outside web/ except with import type', () => {
    const files = readdirSync(PAGE).filter((f) => f.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(0);
    const offending = files.flatMap((f) => {
      const path = join(PAGE, f);
      return runtimeImportsOutside(path, readFileSync(path, 'utf8')).map((spec) => `${f}: ${spec}`);
    });
    expect(offending).toEqual([]);
  });

  it('uses the server event types, so a server change is a page compile error', () => {
    const events = readFileSync(join(PAGE, 'events.ts'), 'utf8');
    expect(runtimeImportsOutside(join(PAGE, 'events.ts'), events)).toEqual([]);
    expect(events).toContain("from '../../src/web/wire.js'");
  });

  it('catches an inline type import, a value import, a mixed import, a re-export and a dynamic import of server code', () => {
    const file = join(PAGE, 'probe.ts');
    const text = [
      "import type { A } from '../../src/web/wire.js';",
      "import { type B } from '../../src/agent/events.js';",
      "import { stripControl } from '../../src/agent/sanitize.js';",
      "import { type C, EventLog } from '../../src/agent/events.js';",
      "import * as host from '../../src/host/index.js';",
      "import '../../src/web/server.js';",
      "export { pageEvent } from '../../src/web/page-events.js';",
      "export type { D } from '../../src/web/wire.js';",
      "void import('../../src/web/conversation.js');",
      "import { el } from './dom.js';",
      "import DOMPurify from 'dompurify';",
    ].join('\n');
    expect(runtimeImportsOutside(file, text)).toEqual([
      '../../src/agent/events.js',
      '../../src/agent/sanitize.js',
      '../../src/agent/events.js',
      '../../src/host/index.js',
      '../../src/web/server.js',
      '../../src/web/page-events.js',
      '../../src/web/conversation.js',
    ]);
  });
});
