/**
 * Terminal-safe text. Anything a model, a tool or a third party wrote can carry escape sequences
 * that move the cursor, retitle the window or hide text; every string shown to an operator passes
 * through here first.
 */

import { revealInvisible } from '../util/shell-quote.js';
import { sortedJson } from '../util/sorted-json.js';
import { cleanText, oneLine } from '../util/terminal-text.js';

/** Strips escape sequences, control characters (keeping newline and tab) and bidi overrides. */
export function stripControl(text: string): string {
  return cleanText(text);
}

export { oneLine };

const BARE = /^[A-Za-z0-9_./:@+,=-]+$/;

// JSON quoting shows where a padded value ends and escapes control characters; what JSON leaves
// raw but a person cannot see (zero-width, bidirectional controls) is spelled out as \uXXXX.
function renderValue(value: unknown): string {
  if (typeof value === 'string') return BARE.test(value) ? value : revealInvisible(JSON.stringify(value));
  if (value === undefined) return 'null';
  // written without recursion: a model can nest its arguments thousands of levels deep
  return revealInvisible(sortedJson(value));
}

/**
 * One line describing a call: `name key=value ...` with keys sorted, because a decoded object has
 * no order and a line that changed between renderings would read as two different calls. A value
 * that is not a plain word is JSON-quoted, and control, zero-width and bidirectional characters are
 * written as escapes, so a model can neither draw on the operator's terminal through an argument
 * nor hide part of one.
 */
export function formatCall(name: string, input: Readonly<Record<string, unknown>>): string {
  const parts = [name];
  for (const key of Object.keys(input).sort()) parts.push(`${BARE.test(key) ? key : revealInvisible(JSON.stringify(key))}=${renderValue(input[key])}`);
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
