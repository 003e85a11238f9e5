/**
 * Retrieved text is the operator's documents, but documents can carry anything, including text
 * written to steer a model. It reaches the model fenced and labelled as data, cleaned of terminal
 * sequences and control characters, with any copy of the fence's closing tag defused.
 */

import { cleanText } from '../util/terminal-text.js';

/** Removes terminal sequences, control characters (keeping tab and newline) and bidi overrides. */
export { cleanText };

/** The tag retrieved text is fenced in. */
export const DATA_TAG = 'knowledge-data';

/** Breaks any opening or closing fence tag inside the text so it cannot end the fence early. */
export function defuse(text: string): string {
  return text.replace(new RegExp(`<(\\s*/?\\s*${DATA_TAG})`, 'giu'), '‹$1');
}

/** Wraps cleaned text in the data fence, labelled with its citation. */
export function fence(ref: string, text: string): string {
  return `<${DATA_TAG} ref=${JSON.stringify(defuse(cleanText(ref)))}>\n${defuse(cleanText(text))}\n</${DATA_TAG}>`;
}
