/**
 * Terminal-safe text for the loop's surfaces. The rules live in `util/terminal-text` and
 * `util/call-line`, shared with every other surface so they cannot drift.
 */
import { cleanText } from '../util/terminal-text.js';

/** Strips escape sequences, control characters (keeping newline and tab) and bidi overrides. */
export function stripControl(text: string): string {
  return cleanText(text);
}

export { oneLine } from '../util/terminal-text.js';
export { formatCall, inputObject, callLine } from '../util/call-line.js';
