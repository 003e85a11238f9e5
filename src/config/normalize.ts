import { DurationSyntaxError, parseGoDuration } from './duration.js';
import { ConfigError } from './errors.js';
import type { Duration, Filter } from './types.js';
import type { RawFilter } from './schema.js';

/** Trims, drops empties and duplicates, keeps first-seen order. */
export function normalizeList(values: readonly string[] | undefined, opts: { keepEmpty?: boolean } = {}): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const v of values ?? []) {
    const t = v.trim();
    if (t === '' && opts.keepEmpty !== true) continue;
    if (seen.has(t)) continue;
    seen.add(t);
    out.push(t);
  }
  return out;
}

/** Lower-cases and trims an enumerated string; `undefined` and blank give the fallback. */
export function normalizeEnum(value: string | undefined, fallback: string): string {
  const t = (value ?? '').trim().toLowerCase();
  return t === '' ? fallback : t;
}

/** A filter with its lists normalized. Tags keep `""`, which matches untagged tools. */
export function normalizeFilter(raw: RawFilter | undefined, key: string): Filter {
  const tools = normalizeList(raw?.tools);
  tools.forEach((re, i) => {
    try {
      new RegExp(re, 'u');
    } catch (err) {
      throw ConfigError.of(
        'value',
        `${key}.tools[${i}]`,
        `${JSON.stringify(re)} is not a valid regular expression (${(err as Error).message}); write a pattern over tool names such as ^stream_`,
      );
    }
  });
  return { tools, tags: normalizeList(raw?.tags, { keepEmpty: true }) };
}

/** Parses a configured duration; absent gives the default. */
export function parseDuration(value: string | 0 | undefined, key: string, fallback: string): Duration {
  if (value === undefined || (typeof value === 'string' && value.trim() === '')) {
    return { text: fallback, ms: parseGoDuration(fallback) };
  }
  const text = typeof value === 'number' ? '0' : value.trim();
  try {
    return { text, ms: parseGoDuration(text) };
  } catch (err) {
    if (err instanceof DurationSyntaxError) throw ConfigError.of('value', key, err.message);
    throw err;
  }
}

/** Canonical JSON (sorted keys) so an options block decodes identically from YAML or JSON. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) out[k] = sortKeys((value as Record<string, unknown>)[k]);
    return out;
  }
  return value;
}
