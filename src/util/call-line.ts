/**
 * How a tool call is written on one line for a person: `name key=value ...` with keys sorted and
 * control sequences removed. Every surface (the line surface, the approval prompt, an MCP
 * elicitation, a replayed journal) renders calls through here, so one call reads the same
 * everywhere and a model cannot draw on an operator's terminal through an argument.
 */
import { cleanText, oneLine } from './terminal-text.js';

const BARE = /^[A-Za-z0-9_./:@+,=-]+$/;

/** Object nesting past this depth is shown as `…` rather than walked. */
const MAX_RENDER_DEPTH = 32;

function sortKeys(value: unknown): unknown {
  // an explicit stack, not recursion: model input can nest thousands of levels deep
  const root: { v: unknown } = { v: undefined };
  const stack: { src: unknown; set: (v: unknown) => void; depth: number }[] = [{ src: value, set: (v) => (root.v = v), depth: 0 }];
  while (stack.length > 0) {
    const { src, set, depth } = stack.pop() as (typeof stack)[number];
    if (typeof src === 'string') {
      set(cleanText(src));
    } else if (typeof src !== 'object' || src === null) {
      set(src);
    } else if (depth >= MAX_RENDER_DEPTH) {
      set('…');
    } else if (Array.isArray(src)) {
      const out: unknown[] = new Array<unknown>(src.length);
      set(out);
      src.forEach((item, i) => stack.push({ src: item, set: (v) => (out[i] = v), depth: depth + 1 }));
    } else {
      const out: Record<string, unknown> = {};
      set(out);
      const obj = src as Record<string, unknown>;
      for (const k of Object.keys(obj).sort()) {
        out[k] = undefined;
        stack.push({ src: obj[k], set: (v) => (out[k] = v), depth: depth + 1 });
      }
    }
  }
  return root.v;
}

function renderValue(value: unknown): string {
  if (typeof value === 'string') {
    const clean = cleanText(value);
    return BARE.test(clean) ? clean : JSON.stringify(clean);
  }
  if (value === undefined) return 'null';
  return JSON.stringify(sortKeys(value));
}

/**
 * One line describing a call: `name key=value ...` with keys sorted, because a decoded object has
 * no order and a line that changed between renderings would read as two different calls.
 */
export function formatCall(name: string, input: Readonly<Record<string, unknown>>): string {
  const parts = [cleanText(name)];
  for (const key of Object.keys(input).sort()) parts.push(`${cleanText(key)}=${renderValue(input[key])}`);
  return oneLine(parts.join(' '));
}

/** Parses a tool input for display; anything that is not a JSON object shows as `{}`. */
export function inputObject(input: string): Readonly<Record<string, unknown>> {
  const text = input.trim();
  if (text === '') return {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // shown as empty; the pipeline answers the call with the parse error
  }
  return {};
}

/**
 * The line a person approves for a call: the tool's own rendering of the resolved call when it has
 * one (a command line), else the generic `name key=value` line. A rendering that throws (input the
 * tool refuses) falls back to the generic line.
 */
export function callLine(tool: { readonly name: string; readonly capabilities: { readonly describeCall: ((input: string) => string) | null } }, input: string): string {
  const describe = tool.capabilities.describeCall;
  if (describe !== null) {
    try {
      const line = describe(input);
      if (line !== '') return oneLine(line);
    } catch {
      // input the tool refuses to render still gets the generic line
    }
  }
  return formatCall(tool.name, inputObject(input));
}
