/**
 * Terminal-safe text. Anything a model, a tool or a third party wrote can carry escape sequences
 * that move the cursor, retitle the window or hide text; every string shown to an operator passes
 * through here first.
 */

import { cleanText, oneLine } from '../util/terminal-text.js';

/** Strips escape sequences, control characters (keeping newline and tab) and bidi overrides. */
export function stripControl(text: string): string {
  return cleanText(text);
}

export { oneLine };

const BARE = /^[A-Za-z0-9_./:@+,=-]+$/;

function renderValue(value: unknown): string {
  if (typeof value === 'string') {
    const clean = stripControl(value);
    return BARE.test(clean) ? clean : JSON.stringify(clean);
  }
  if (value === undefined) return 'null';
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (typeof value === 'string') return stripControl(value);
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) out[k] = sortKeys((value as Record<string, unknown>)[k]);
    return out;
  }
  return value;
}

/**
 * One line describing a call: `name key=value ...` with keys sorted, because a decoded object has
 * no order and a line that changed between renderings would read as two different calls. Control
 * characters are stripped so a model cannot draw on the operator's terminal through an argument.
 */
export function formatCall(name: string, input: Readonly<Record<string, unknown>>): string {
  const parts = [name];
  for (const key of Object.keys(input).sort()) parts.push(`${key}=${renderValue(input[key])}`);
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
    // shown as empty; the loop answers the call with the parse error
  }
  return {};
}
