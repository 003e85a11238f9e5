import { MemoryError } from './errors.js';
import { MAX_CONTENT_BYTES, MAX_DESCRIPTION_RUNES, MAX_ENTRIES, MAX_KEY_RUNES } from './limits.js';
import { stripTerminalSequences } from './sanitize.js';

/**
 * Legal key characters: the intersection of NATS KV key characters and safe file-name characters.
 * The slash is left out so a key maps one to one onto a flat file name with nothing to escape.
 */
const KEY_CHARS = /^[A-Za-z0-9._=-]+$/;

/**
 * Checks a key against the key rules. Every backend calls this before touching its store, for
 * reads and deletes as much as writes, so `../x`, `.x`, `x.`, `a/b` or a NUL never reach a path or
 * a subject. Throws `MemoryError` code `invalid_key`.
 */
export function validateKey(key: string): void {
  const why = keyProblem(key);
  if (why !== undefined) {
    throw new MemoryError('invalid_key', `invalid memory key ${JSON.stringify(key)}: ${why}`, { key });
  }
}

/** Whether a key is legal, without throwing (listing uses it to hide hand-planted files). */
export function isValidKey(key: string): boolean {
  return keyProblem(key) === undefined;
}

function keyProblem(key: string): string | undefined {
  if (key.length === 0) return 'a key must not be empty';
  if ([...key].length > MAX_KEY_RUNES) return `a key has at most ${MAX_KEY_RUNES} characters`;
  if (!KEY_CHARS.test(key)) return 'use only letters, digits, ".", "_", "=" and "-"';
  if (key.startsWith('.') || key.endsWith('.')) return 'a key must not start or end with "."';
  if (key.includes('..')) return 'a key must not contain ".."';
  return undefined;
}

/**
 * Normalizes a description the one way every backend stores it: terminal sequences removed,
 * control characters (newlines and tabs included) turned into spaces, runs of whitespace collapsed
 * and the ends trimmed. A description is one line in an index, so nothing may break it.
 */
export function normalizeDescription(description: string): string {
  return stripTerminalSequences(description)
    .replace(/[\p{Cc}\p{Zl}\p{Zp}]/gu, ' ')
    .replace(/\s+/gu, ' ')
    .trim();
}

/** A write that passed validation: the description is the normalized one, which is what is stored. */
export interface ValidWrite {
  readonly key: string;
  readonly description: string;
  readonly content: string;
}

/**
 * Validates a write before anything is stored: the key, the description after normalization
 * (not empty, at most 500 runes) and the content (at most 64 KiB of UTF-8). Returns the write with
 * the normalized description; the raw one is discarded.
 */
export function validateWrite(key: string, description: string, content: string): ValidWrite {
  validateKey(key);
  const normalized = normalizeDescription(description);
  if (normalized === '') {
    throw new MemoryError('invalid_description', 'a memory needs a description: one line saying what it holds', { key });
  }
  const runes = [...normalized].length;
  if (runes > MAX_DESCRIPTION_RUNES) {
    throw new MemoryError(
      'invalid_description',
      `the description has ${runes} characters; shorten it to at most ${MAX_DESCRIPTION_RUNES}`,
      { key },
    );
  }
  const bytes = Buffer.byteLength(content, 'utf8');
  if (bytes > MAX_CONTENT_BYTES) {
    throw new MemoryError(
      'too_large',
      `the content is ${bytes} bytes; a memory holds at most ${MAX_CONTENT_BYTES} bytes, so shorten it or split it across keys`,
      { key },
    );
  }
  return { key, description: normalized, content };
}

/**
 * Refuses a create when the store already holds the maximum number of entries. Called on the
 * create path only: an overwrite replaces an entry that was already counted.
 */
export function checkCapacity(count: number, key: string): void {
  if (count >= MAX_ENTRIES) {
    throw new MemoryError('full', `memory is full (${count} of ${MAX_ENTRIES} entries); delete or overwrite an existing memory instead`, {
      key,
    });
  }
}
