/**
 * Memory text is model-written and read back by a later run, so it is treated as untrusted: it
 * is cleaned when written and cleaned again when rendered, because a store may hold entries written
 * by hand or by an older version.
 */

import { cleanText, stripTerminalSequences } from '../util/terminal-text.js';

export { stripTerminalSequences };

/**
 * Cleans memory text: terminal sequences removed, carriage returns folded into newlines, other
 * control characters and bidirectional overrides dropped. Tabs and newlines stay.
 */
export function sanitizeMemoryText(text: string): string {
  return cleanText(text);
}

/**
 * Makes text safe to place inside a fence named `tag`: the closing tag (in any letter case, with
 * optional spaces) is broken so the text cannot end the fence early and speak outside it.
 */
export function defuseFence(text: string, tag: string): string {
  const escaped = tag.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&');
  return text.replace(new RegExp(`<(\\s*/?\\s*${escaped})`, 'giu'), '‹$1');
}
