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

/**
 * Whether a decoded value nests deeper than `limit` (counted as `jsonValueDepth` counts). Walked
 * with an explicit stack kept as two parallel arrays that only ever hold objects and arrays, so it
 * makes nothing per value and stops at the first one past the limit: cheap over the many small
 * schemas of an application's thousands of commands, and safe on a hostile value of any depth.
 */
export function jsonValueExceeds(value: unknown, limit: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const values: object[] = [value];
  const depths: number[] = [1];
  for (let top = values.pop(); top !== undefined; top = values.pop()) {
    const depth = depths.pop() as number;
    if (depth > limit) return true;
    if (Array.isArray(top)) {
      for (let i = 0; i < top.length; i++) {
        const child: unknown = top[i];
        if (typeof child === 'object' && child !== null) {
          values.push(child);
          depths.push(depth + 1);
        }
      }
      continue;
    }
    const o = top as Record<string, unknown>;
    for (const key in o) {
      if (!Object.prototype.hasOwnProperty.call(o, key)) continue;
      const child = o[key];
      if (typeof child === 'object' && child !== null) {
        values.push(child);
        depths.push(depth + 1);
      }
    }
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
