/**
 * Retrieved text is the operator's documents, but documents can carry anything, including text
 * written to steer a model. It reaches the model fenced and labelled as data, cleaned of terminal
 * sequences and control characters, with any copy of the fence's closing tag defused.
 */

/** The tag retrieved text is fenced in. */
export const DATA_TAG = 'knowledge-data';

// CSI, OSC/DCS/PM/APC strings and two-byte escapes, 7-bit and 8-bit forms.
// eslint-disable-next-line no-control-regex
const TERMINAL = /\u001b\[[0-?]*[ -/]*[@-~]|\u009b[0-?]*[ -/]*[@-~]|(?:\u001b[\]PX^_]|[\u0090\u0098\u009d\u009e\u009f])[\s\S]*?(?:\u0007|\u001b\\|\u009c|$)|\u001b[ -/]*[0-~]?/gu;
// C0 and C1 controls except tab and newline, plus DEL.
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/gu;
const BIDI = /[\u202a-\u202e\u2066-\u2069]/gu;

/** Removes terminal sequences, control characters (keeping tab and newline) and bidi overrides. */
export function cleanText(text: string): string {
  return text.replace(TERMINAL, '').replace(/\r\n?/gu, '\n').replace(CONTROLS, '').replace(BIDI, '');
}

/** Breaks any opening or closing fence tag inside the text so it cannot end the fence early. */
export function defuse(text: string): string {
  return text.replace(new RegExp(`<(\\s*/?\\s*${DATA_TAG})`, 'giu'), '‹$1');
}

/** Wraps cleaned text in the data fence, labelled with its citation. */
export function fence(ref: string, text: string): string {
  return `<${DATA_TAG} ref=${JSON.stringify(defuse(cleanText(ref)))}>\n${defuse(cleanText(text))}\n</${DATA_TAG}>`;
}
