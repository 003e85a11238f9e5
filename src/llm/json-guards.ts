/** Small guards for reading provider JSON that arrives as `unknown`. */

/** A JSON object. */
export type JsonObject = Readonly<Record<string, unknown>>;

/** Whether a parsed JSON value is an object (not null, not an array). */
export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The string at `key`, or `fallback` when absent or not a string. */
export function str(o: JsonObject, key: string, fallback = ''): string {
  const v = o[key];
  return typeof v === 'string' ? v : fallback;
}

/** The non-negative integer at `key`, or 0 when absent, null or not a number. */
export function count(o: JsonObject | undefined, key: string): number {
  const v = o?.[key];
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0;
}

/** The object at `key`, or undefined. */
export function obj(o: JsonObject | undefined, key: string): JsonObject | undefined {
  const v = o?.[key];
  return isObject(v) ? v : undefined;
}
