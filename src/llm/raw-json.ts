/**
 * Locating values inside JSON text without re-serialising them. A provider answer is parsed with
 * `JSON.parse` for its structure, and these spans give back the exact bytes of a tool call's input
 * or an opaque server block, so a large integer or an odd spacing survives byte for byte.
 */

/** A value's place in the text: `text.slice(start, end)` is the value. */
export interface Span {
  readonly start: number;
  readonly end: number;
}

/** Thrown when the text is not the JSON the caller expected; the caller maps it to its own error. */
export class RawJsonError extends Error {
  constructor(message: string, at: number) {
    super(`${message} at offset ${at}`);
    this.name = 'RawJsonError';
  }
}

function skipWs(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
    else return i;
  }
}

function skipString(text: string, i: number): number {
  // i is at the opening quote
  for (let j = i + 1; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === 0x5c) j++;
    else if (c === 0x22) return j + 1;
  }
  throw new RawJsonError('unterminated string', i);
}

/** The end of the value starting at `i` (which must be at its first character). */
export function skipValue(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === 0x22) return skipString(text, i);
  if (c === 0x7b || c === 0x5b) {
    let depth = 0;
    for (let j = i; j < text.length; j++) {
      const d = text.charCodeAt(j);
      if (d === 0x22) {
        j = skipString(text, j) - 1;
      } else if (d === 0x7b || d === 0x5b) {
        depth++;
      } else if (d === 0x7d || d === 0x5d) {
        depth--;
        if (depth === 0) return j + 1;
      }
    }
    throw new RawJsonError('unterminated container', i);
  }
  // number, true, false, null
  let j = i;
  while (j < text.length) {
    const d = text.charCodeAt(j);
    if (d === 0x2c || d === 0x7d || d === 0x5d || d === 0x20 || d === 0x0a || d === 0x0d || d === 0x09) break;
    j++;
  }
  if (j === i) throw new RawJsonError('expected a value', i);
  return j;
}

function keyAt(text: string, i: number, end: number): string {
  const inner = text.slice(i + 1, end - 1);
  return inner.includes('\\') ? (JSON.parse(text.slice(i, end)) as string) : inner;
}

/** The spans of an object's members, by key. `start` must be at the opening brace. */
export function objectMembers(text: string, start: number): Map<string, Span> {
  if (text.charCodeAt(start) !== 0x7b) throw new RawJsonError('expected an object', start);
  const out = new Map<string, Span>();
  let i = skipWs(text, start + 1);
  if (text.charCodeAt(i) === 0x7d) return out;
  for (;;) {
    if (text.charCodeAt(i) !== 0x22) throw new RawJsonError('expected a key', i);
    const keyEnd = skipString(text, i);
    const key = keyAt(text, i, keyEnd);
    i = skipWs(text, keyEnd);
    if (text.charCodeAt(i) !== 0x3a) throw new RawJsonError('expected a colon', i);
    i = skipWs(text, i + 1);
    const end = skipValue(text, i);
    out.set(key, { start: i, end });
    i = skipWs(text, end);
    const sep = text.charCodeAt(i);
    if (sep === 0x7d) return out;
    if (sep !== 0x2c) throw new RawJsonError('expected a comma', i);
    i = skipWs(text, i + 1);
  }
}

/** The spans of an array's elements. `start` must be at the opening bracket. */
export function arrayElements(text: string, start: number): Span[] {
  if (text.charCodeAt(start) !== 0x5b) throw new RawJsonError('expected an array', start);
  const out: Span[] = [];
  let i = skipWs(text, start + 1);
  if (text.charCodeAt(i) === 0x5d) return out;
  for (;;) {
    const end = skipValue(text, i);
    out.push({ start: i, end });
    i = skipWs(text, end);
    const sep = text.charCodeAt(i);
    if (sep === 0x5d) return out;
    if (sep !== 0x2c) throw new RawJsonError('expected a comma', i);
    i = skipWs(text, i + 1);
  }
}

/** The span of the top-level value (the text may have surrounding whitespace). */
export function rootSpan(text: string): Span {
  const start = skipWs(text, 0);
  return { start, end: skipValue(text, start) };
}

/** The spans of the elements of the array found under `key` of the top-level object. */
export function rootArrayElements(text: string, key: string): Span[] {
  const members = objectMembers(text, rootSpan(text).start);
  const span = members.get(key);
  if (span === undefined) return [];
  return arrayElements(text, span.start);
}

/**
 * The span of one member of the top-level object, scanning only as far as that member: what
 * follows it is never read. Undefined when the object has no such member.
 */
export function rootMemberSpan(text: string, key: string): Span | undefined {
  const start = skipWs(text, 0);
  if (text.charCodeAt(start) !== 0x7b) throw new RawJsonError('expected an object', start);
  let i = skipWs(text, start + 1);
  if (text.charCodeAt(i) === 0x7d) return undefined;
  for (;;) {
    if (text.charCodeAt(i) !== 0x22) throw new RawJsonError('expected a key', i);
    const keyEnd = skipString(text, i);
    const name = keyAt(text, i, keyEnd);
    i = skipWs(text, keyEnd);
    if (text.charCodeAt(i) !== 0x3a) throw new RawJsonError('expected a colon', i);
    i = skipWs(text, i + 1);
    const end = skipValue(text, i);
    if (name === key) return { start: i, end };
    i = skipWs(text, end);
    const sep = text.charCodeAt(i);
    if (sep === 0x7d) return undefined;
    if (sep !== 0x2c) throw new RawJsonError('expected a comma', i);
    i = skipWs(text, i + 1);
  }
}
