import { ConfigError } from './errors.js';

/** What `harness.knowledge.extensions` is when unset: documentation text, nothing else. */
export const DEFAULT_KNOWLEDGE_EXTENSIONS = ['.md', '.markdown', '.txt', '.text'] as const;

const EXTENSION = /^\.[\p{L}\p{N}_+-]+(?:\.[\p{L}\p{N}_+-]+)*$/u;

/**
 * Normalizes the configured file-name endings that knowledge indexes: each written with or
 * without its leading dot, compared case-insensitively, duplicates removed. An empty list would
 * index nothing and is refused, as is anything that is not a plain ending (a path, a glob).
 */
export function prepareKnowledgeExtensions(raw: readonly string[] | undefined): readonly string[] {
  if (raw === undefined) return DEFAULT_KNOWLEDGE_EXTENSIONS;
  const key = 'harness.knowledge.extensions';
  const out: string[] = [];
  raw.forEach((item, i) => {
    const t = item.trim().toLowerCase();
    const ext = t.startsWith('.') ? t : `.${t}`;
    if (!EXTENSION.test(ext)) {
      throw ConfigError.of('value', `${key}[${i}]`, `${JSON.stringify(item)} is not a file-name ending; write it like ".md" or "rst"`);
    }
    if (!out.includes(ext)) out.push(ext);
  });
  if (out.length === 0) {
    throw ConfigError.of(
      'value',
      key,
      `is empty, so nothing would be indexed; remove the key for the default (${DEFAULT_KNOWLEDGE_EXTENSIONS.join(', ')}) or list the endings to index`,
    );
  }
  return out;
}
