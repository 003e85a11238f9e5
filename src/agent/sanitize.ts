/**
 * Terminal-safe text. Anything a model, a tool or a third party wrote can carry escape sequences
 * that move the cursor, retitle the window or hide text; every string shown to an operator passes
 * through here first.
 */

import { sortedJson } from '../util/sorted-json.js';
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
  // written without recursion: a model can nest its arguments thousands of levels deep
  return sortedJson(value, { mapString: stripControl });
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
