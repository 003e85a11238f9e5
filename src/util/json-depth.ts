/**
 * Nesting depth of untrusted JSON, measured without recursion. A model, a peer or an application
 * can nest arrays and objects thousands of levels deep; a recursive walk over such a value overflows
 * the stack. These functions use an explicit stack and stop counting past the limit they are given,
 * so measuring a hostile value costs no more than the limit allows.
 */

/** The deepest tool input accepted from a model: 64 levels of arrays and objects. */
export const MAX_TOOL_INPUT_DEPTH = 64;

/**
 * The nesting depth of a JSON text: `1` is `{}` or `[]`, `0` a scalar. Brackets inside strings do
 * not count. Counting stops at `limit + 1`, so the answer is exact up to the limit and "more" past
 * it. Malformed text is measured as far as it goes; parsing it is the caller's business.
 */
export function jsonTextDepth(text: string, limit: number = Number.MAX_SAFE_INTEGER): number {
  let depth = 0;
  let max = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // skip the string, honouring backslash escapes
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x7b || c === 0x5b) {
      depth++;
      if (depth > max) {
        max = depth;
        if (max > limit) return max;
      }
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return max;
}

/**
 * The nesting depth of a decoded value (arrays and plain objects count; `1` for `{}`), walked with
 * an explicit stack. Stops at `limit + 1`.
 */
export function jsonValueDepth(value: unknown, limit: number = Number.MAX_SAFE_INTEGER): number {
  let max = 0;
  const stack: { v: unknown; d: number }[] = [{ v: value, d: 0 }];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const { v, d } = top;
    if (typeof v !== 'object' || v === null) continue;
    const depth = d + 1;
    if (depth > max) {
      max = depth;
      if (max > limit) return max;
    }
    const children: readonly unknown[] = Array.isArray(v) ? v : Object.values(v);
    for (const c of children) if (typeof c === 'object' && c !== null) stack.push({ v: c, d: depth });
  }
  return max;
}

/** The largest limit `jsonValueExceeds` accepts: its recursion is bounded by the limit. */
const MAX_RECURSIVE_LIMIT = 1024;

/**
 * Whether a decoded value nests deeper than `limit` (counted as `jsonValueDepth` counts). It
 * recurses, but never more than `limit` calls deep, so a hostile value cannot overflow the stack;
 * with no stack to keep it is several times faster than `jsonValueDepth` over many small values
 * (the schemas of an application's thousands of commands). `limit` must be at most 1024.
 */
export function jsonValueExceeds(value: unknown, limit: number): boolean {
  if (!(limit <= MAX_RECURSIVE_LIMIT))
    throw new RangeError(`jsonValueExceeds takes a limit of at most ${MAX_RECURSIVE_LIMIT}, not ${limit}`);
  return exceeds(value, limit);
}

function exceeds(value: unknown, room: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (room <= 0) return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const c: unknown = value[i];
      if (typeof c === 'object' && c !== null && exceeds(c, room - 1)) return true;
    }
    return false;
  }
  // walked by key: no array of values is made for each of the many small objects
  const o = value as Record<string, unknown>;
  for (const k in o) {
    if (!Object.prototype.hasOwnProperty.call(o, k)) continue;
    const c = o[k];
    if (typeof c === 'object' && c !== null && exceeds(c, room - 1)) return true;
  }
  return false;
}

/**
 * The check for tool input a model wrote, before anything walks it: `undefined` when the JSON text
 * nests no deeper than `limit`, otherwise the message to return to the model as the call's error
 * result (the call does not run). The invocation pipeline applies it to every call.
 */
export function toolInputDepthError(input: string, limit: number = MAX_TOOL_INPUT_DEPTH): string | undefined {
  const depth = jsonTextDepth(input, limit);
  if (depth <= limit) return undefined;
  return `the arguments nest deeper than ${limit} levels of arrays and objects; the call was refused without running. Send flatter arguments.`;
}
