import { isMap, isPair, isScalar, LineCounter, parseDocument } from 'yaml';
import type { Document } from 'yaml';
import type { z } from 'zod';
import { ConfigError } from './errors.js';
import type { ConfigIssue } from './errors.js';
import { ConfigSchema, knownKeysAt } from './schema.js';
import type { RawConfig } from './schema.js';

/** The result of stage one: the raw configuration and the keys the file set. */
export interface Unmarshalled {
  readonly raw: RawConfig;
  /** Every dotted key path present in the file (arrays indexed as `name[0]`). */
  readonly present: ReadonlySet<string>;
}

type PathSeg = string | number;

/**
 * Stage one: parse YAML or JSON strictly. Duplicate keys, unknown keys and wrongly typed values
 * are errors naming the dotted key path and the line and column in `name`.
 */
export function unmarshal(text: string, name: string): Unmarshalled {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false });
  const at = (offset: number): string => {
    const { line, col } = lineCounter.linePos(offset);
    return `${name}:${line}:${col}`;
  };

  if (doc.errors.length > 0) {
    throw new ConfigError(
      doc.errors.map((err): ConfigIssue => {
        const [start] = err.pos;
        if (err.code === 'DUPLICATE_KEY') {
          const lineEnd = text.indexOf('\n', start);
          const line = text.slice(start, lineEnd === -1 ? undefined : lineEnd);
          const keyText = (line.split(':')[0] ?? '').trim().replace(/^["']|["']$/g, '');
          return {
            code: 'syntax',
            key: '',
            message: `duplicate key "${keyText}": each key may appear once; merge the two entries`,
            at: at(start),
          };
        }
        return { code: 'syntax', key: '', message: `not valid YAML or JSON: ${firstLine(err.message)}`, at: at(start) };
      }),
    );
  }

  const data: unknown = doc.toJS({ maxAliasCount: 100 }) ?? {};
  if (typeof data !== 'object' || Array.isArray(data)) {
    throw ConfigError.of('type', '', 'the configuration must be a mapping of keys such as identity, llm and harness', at(0));
  }

  // jitless: a schema parsed once per process costs less read directly than compiled first
  const parsed = ConfigSchema.safeParse(data, { jitless: true });
  if (!parsed.success) {
    throw new ConfigError(inFileOrder(parsed.error.issues.flatMap((issue) => describeIssue(issue, doc, data, at))));
  }
  return { raw: parsed.data, present: collectPaths(data) };
}

/** Issues in the order their places appear in the file; those with no place keep their order, last. */
function inFileOrder(issues: readonly ConfigIssue[]): ConfigIssue[] {
  const place = (i: ConfigIssue): readonly [number, number] => {
    const m = i.at === undefined ? null : /:(\d+):(\d+)$/.exec(i.at);
    return m === null ? [Number.MAX_SAFE_INTEGER, 0] : [Number(m[1]), Number(m[2])];
  };
  // Array.prototype.sort is stable: issues at one place keep the schema's order
  return [...issues].sort((a, b) => {
    const [la, ca] = place(a);
    const [lb, cb] = place(b);
    return la - lb || ca - cb;
  });
}

function firstLine(s: string): string {
  return s.split('\n')[0] ?? s;
}

function dotted(path: readonly PathSeg[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out === '' ? seg : `.${seg}`;
  }
  return out;
}

function describeIssue(issue: z.core.$ZodIssue, doc: Document, data: unknown, at: (offset: number) => string): ConfigIssue[] {
  const path = issue.path.filter((p): p is PathSeg => typeof p !== 'symbol');
  if (issue.code === 'unrecognized_keys') {
    const known = knownKeysAt(path);
    return issue.keys.map((key) => {
      const full = dotted([...path, key]);
      const guess = suggest(key, known);
      const hint = guess === undefined ? '' : ` (did you mean ${dotted([...path, guess])}?)`;
      const offset = keyOffset(doc, path, key);
      const accepted = known.length > 0 ? `; accepted here: ${known.join(', ')}` : '';
      const base: ConfigIssue = {
        code: 'unknown_key',
        key: full,
        message: `unknown key${hint}${guess === undefined ? accepted : ''}`,
      };
      return offset === undefined ? base : { ...base, at: at(offset) };
    });
  }
  const value = valueAt(data, path);
  const offset = valueOffset(doc, path);
  let message: string;
  switch (issue.code) {
    case 'invalid_type':
      message =
        value === undefined
          ? `is required (${expectation(issue.expected)})`
          : `expected ${expectation(issue.expected)}, got ${describeValue(value)}`;
      break;
    case 'invalid_union':
      message = `expected a Go duration such as 30s, 1.5h or 2h45m, got ${describeValue(value)}`;
      break;
    default:
      message = issue.message;
  }
  const base: ConfigIssue = { code: 'type', key: dotted(path), message };
  return [offset === undefined ? base : { ...base, at: at(offset) }];
}

function expectation(expected: string): string {
  switch (expected) {
    case 'string':
      return 'a string';
    case 'number':
      return 'a number';
    case 'int':
      return 'an integer';
    case 'boolean':
      return 'true or false';
    case 'array':
      return 'a list';
    case 'object':
    case 'record':
      return 'a mapping';
    default:
      return expected;
  }
}

function describeValue(value: unknown): string {
  if (value === null) return 'an empty value';
  if (Array.isArray(value)) return 'a list';
  switch (typeof value) {
    case 'string':
      return `the string ${JSON.stringify(value)}`;
    case 'number':
      return Number.isInteger(value) ? `the number ${value}` : `the number ${value} (not an integer)`;
    case 'boolean':
      return `${value}`;
    case 'object':
      return 'a mapping';
    default:
      return typeof value;
  }
}

function valueAt(data: unknown, path: readonly PathSeg[]): unknown {
  let cur: unknown = data;
  for (const seg of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PathSeg, unknown>)[seg];
  }
  return cur;
}

function valueOffset(doc: Document, path: readonly PathSeg[]): number | undefined {
  const node: unknown = path.length === 0 ? doc.contents : doc.getIn(path, true);
  if (node !== null && typeof node === 'object' && 'range' in node) {
    const range = (node as { range?: [number, number, number] }).range;
    if (range) return range[0];
  }
  if (path.length > 0) {
    const last = path[path.length - 1];
    if (typeof last === 'string') return keyOffset(doc, path.slice(0, -1), last);
  }
  return undefined;
}

function keyOffset(doc: Document, parent: readonly PathSeg[], key: string): number | undefined {
  const node: unknown = parent.length === 0 ? doc.contents : doc.getIn(parent, true);
  if (!isMap(node)) return undefined;
  for (const item of node.items) {
    if (isPair(item) && isScalar(item.key) && String(item.key.value) === key) {
      return item.key.range?.[0];
    }
  }
  return undefined;
}

function collectPaths(data: unknown): Set<string> {
  const out = new Set<string>();
  const walk = (value: unknown, path: PathSeg[]): void => {
    if (path.length > 0) out.add(dotted(path));
    if (Array.isArray(value)) value.forEach((v, i) => walk(v, [...path, i]));
    else if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) walk(v, [...path, k]);
    }
  };
  walk(data, []);
  return out;
}

/** The closest known key, when one is close enough to be a likely typo. */
export function suggest(input: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestScore = Infinity;
  for (const c of candidates) {
    const d = levenshtein(input.toLowerCase(), c.toLowerCase());
    if (d < bestScore) {
      bestScore = d;
      best = c;
    }
  }
  if (best === undefined) return undefined;
  const limit = Math.max(2, Math.floor(best.length / 3));
  return bestScore <= limit ? best : undefined;
}

function levenshtein(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0] ?? 0;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j] ?? 0;
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      prev[j] = Math.min(up + 1, (prev[j - 1] ?? 0) + 1, diag + cost);
      diag = up;
    }
  }
  return prev[b.length] ?? 0;
}
