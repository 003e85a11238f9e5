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

/**
 * The file's application, or undefined when it names none, is not a regular file, or cannot be
 * read as YAML (the check will say why).
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
  return { applicationPath: app.trim(), baseDir: dirname(resolve(path)), words: [...new Set(text.match(WORD) ?? [])] };
}
