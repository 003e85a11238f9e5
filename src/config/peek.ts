/**
 * A configuration file read for one purpose before it is checked: finding the application early
 * enough that its `--fisk-introspect` runs while the rest of the configuration code loads and
 * checks the file. Nothing here decides anything: the checked configuration later says whether
 * the early introspection ran exactly what it would run itself, and it is thrown away (the
 * application killed) when it did not, or when the file is refused.
 */
import { readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { isMap, parseDocument } from 'yaml';
import type { Document } from 'yaml';

export interface ApplicationPeek {
  /** `application_path` as the file writes it, trimmed. */
  readonly applicationPath: string;
  /** The directory holding the file, which a relative application path resolves against. */
  readonly baseDir: string;
  /**
   * Every word of the file's text that could name an environment variable. A configuration names
   * the credential variables it adds (an embeddings key, an MCP client's `${VAR}`) in its text, so
   * these are a superset of them: stripped from the early application's environment, no variable
   * the checked configuration would withhold reaches it.
   */
  readonly words: readonly string[];
}

const WORD = /[A-Za-z_][A-Za-z0-9_]*/g;

/** Whether the document has a `harness.sandbox` block, read as the checked configuration reads it (aliases resolved). */
function asksForSandbox(doc: Document): boolean {
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch {
    // unreadable as data: the check will refuse it, and nothing starts before that
    return true;
  }
  const harness = typeof data === 'object' && data !== null ? (data as Record<string, unknown>)['harness'] : undefined;
  return typeof harness === 'object' && harness !== null && (harness as Record<string, unknown>)['sandbox'] !== undefined;
}

/**
 * The file's application, or undefined when it names none, is not a regular file, cannot be read
 * as YAML (the check will say why), or has a `harness.sandbox` block: an application started
 * before its sandbox is checked and resolved would run outside it.
 */
export function peekApplication(path: string): ApplicationPeek | undefined {
  let text: string;
  try {
    // a regular file only: a pipe (`--config <(...)`) can be read once, and that read is the check's
    if (!statSync(path).isFile()) return undefined;
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  const doc = parseDocument(text, { uniqueKeys: true });
  if (doc.errors.length > 0 || !isMap(doc.contents)) return undefined;
  const app = doc.get('application_path');
  if (typeof app !== 'string' || app.trim() === '') return undefined;
  if (asksForSandbox(doc)) return undefined;
  return { applicationPath: app.trim(), baseDir: dirname(resolve(path)), words: [...new Set(text.match(WORD) ?? [])] };
}
