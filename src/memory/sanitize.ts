/**
 * Memory text is model-written and read back by a later run, so it is treated as untrusted: it
 * is cleaned when written and cleaned again when rendered, because a store may hold entries written
 * by hand or by an older version.
 */

import { cleanText, stripTerminalSequences } from '../util/terminal-text.js';

export { stripTerminalSequences };

/** Breaks a copy of the fence's tag inside the text (shared with every other fence). */
export { defuseFence } from '../util/data-fence.js';

/**
 * Cleans memory text: terminal sequences removed, carriage returns folded into newlines, other
 * control characters and bidirectional overrides dropped. Tabs and newlines stay.
 */
export function sanitizeMemoryText(text: string): string {
  return cleanText(text);
}
