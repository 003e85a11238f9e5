/**
 * Terminal-safe text. Anything a model, a tool, a document or a third party wrote can carry escape
 * sequences that move the cursor, retitle the window or hide text, and bidirectional overrides that
 * make a line read differently than it is. Every surface cleans untrusted text through here, so the
 * rules cannot drift between them.
 */

// CSI, OSC/DCS/SOS/PM/APC strings and two-byte escapes, in their 7-bit and 8-bit forms.
const TERMINAL_SEQUENCES =
  // eslint-disable-next-line no-control-regex
  /\u001b\[[0-?]*[ -/]*[@-~]|\u009b[0-?]*[ -/]*[@-~]|(?:\u001b[\]PX^_]|[\u0090\u0098\u009d\u009e\u009f])[\s\S]*?(?:\u0007|\u001b\\|\u009c|$)|\u001b[ -/]*[0-~]?/gu;

// C0 and C1 controls except tab and newline, plus DEL.
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/gu;

// Bidirectional overrides, isolates and marks.
const BIDI = /[\u202a-\u202e\u2066-\u2069\u200e\u200f]/gu;

/** Removes terminal escape and control-string sequences, leaving everything else. */
export function stripTerminalSequences(text: string): string {
  return text.replace(TERMINAL_SEQUENCES, '');
}

/**
 * Cleans untrusted text for a terminal or a prompt: terminal sequences removed, carriage returns
 * folded into newlines, other control characters and bidirectional overrides dropped. Tabs and
 * newlines stay.
 */
export function cleanText(text: string): string {
  return stripTerminalSequences(text).replace(/\r\n?/gu, '\n').replace(CONTROLS, '').replace(BIDI, '');
}

/** Like `cleanText`, with newlines, tabs and line separators folded to spaces, for one-line output. */
export function oneLine(text: string): string {
  return cleanText(text).replace(/[\n\t\u2028\u2029]+/gu, ' ');
}
