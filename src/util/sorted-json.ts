/**
 * JSON text with object keys sorted, written without recursion. Rendering a call for a person and
 * hashing a configuration both want one spelling per value; the values come from models, peers and
 * applications, so the walk uses an explicit stack and never overflows on deep nesting.
 */

/** How to write each string: the default is `JSON.stringify`'s quoting of the string as it is. */
export interface SortedJsonOptions {
  /** Rewrites every string (keys excluded) before it is quoted, e.g. to strip control characters. */
  readonly mapString?: (s: string) => string;
}

type Frame = { readonly kind: 'text'; readonly text: string } | { readonly kind: 'value'; readonly value: unknown };

/**
 * `JSON.stringify(value)` with object keys sorted by code unit at every level. `undefined`,
 * functions and symbols inside objects are left out and inside arrays become `null`, as
 * `JSON.stringify` does; a value with `toJSON` is written as what that returns.
 */
export function sortedJson(value: unknown, opts: SortedJsonOptions = {}): string {
  const out: string[] = [];
  const stack: Frame[] = [{ kind: 'value', value }];
  for (let frame = stack.pop(); frame !== undefined; frame = stack.pop()) {
    if (frame.kind === 'text') {
      out.push(frame.text);
      continue;
    }
    let current = frame.value;
    if (typeof current === 'object' && current !== null && typeof (current as { toJSON?: unknown }).toJSON === 'function') {
      current = (current as { toJSON: () => unknown }).toJSON();
    }
    if (typeof current === 'string') {
      out.push(JSON.stringify(opts.mapString === undefined ? current : opts.mapString(current)));
    } else if (Array.isArray(current)) {
      // frames are pushed in reverse so they pop in order
      stack.push({ kind: 'text', text: ']' });
      for (let i = current.length - 1; i >= 0; i--) {
        const element: unknown = current[i];
        stack.push({ kind: 'value', value: skipped(element) ? null : element });
        if (i > 0) stack.push({ kind: 'text', text: ',' });
      }
      out.push('[');
    } else if (typeof current === 'object' && current !== null) {
      const obj = current as Record<string, unknown>;
      const keys = Object.keys(obj)
        .filter((k) => !skipped(obj[k]))
        .sort();
      stack.push({ kind: 'text', text: '}' });
      for (let i = keys.length - 1; i >= 0; i--) {
        const k = keys[i] ?? '';
        stack.push({ kind: 'value', value: obj[k] });
        stack.push({ kind: 'text', text: `${i > 0 ? ',' : ''}${JSON.stringify(k)}:` });
      }
      out.push('{');
    } else {
      out.push(JSON.stringify(current) ?? 'null');
    }
  }
  return out.join('');
}

function skipped(v: unknown): boolean {
  return v === undefined || typeof v === 'function' || typeof v === 'symbol';
}
