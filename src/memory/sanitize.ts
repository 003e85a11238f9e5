/**
 * Memory text is model-written and read back by a later run, so it is treated as untrusted: it
 * is cleaned when written and cleaned again when rendered, because a store may hold entries written
 * by hand or by an older version.
 */

// CSI, OSC, DCS/SOS/PM/APC strings and two-byte escapes, in their 7-bit and 8-bit forms.
// eslint-disable-next-line no-control-regex
const TERMINAL_SEQUENCES = /\u001b\[[0-?]*[ -/]*[@-~]|\u009b[0-?]*[ -/]*[@-~]|(?:\u001b[\]PX^_]|[\u0090\u0098\u009d\u009e\u009f])[\s\S]*?(?:\u0007|\u001b\\|\u009c|$)|\u001b[ -/]*[0-~]?/gu;

// C0 and C1 controls except tab and newline, plus DEL.
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/gu;

// Bidirectional overrides and isolates can make text read differently from what it is.
const BIDI = /[\u202a-\u202e\u2066-\u2069]/gu;

/** Removes terminal escape and control-string sequences. */
export function stripTerminalSequences(text: string): string {
  return text.replace(TERMINAL_SEQUENCES, '');
}

/**
 * Cleans memory text: terminal sequences removed, carriage returns folded into newlines, other
 * control characters and bidirectional overrides dropped. Tabs and newlines stay.
 */
export function sanitizeMemoryText(text: string): string {
  return stripTerminalSequences(text).replace(/\r\n?/gu, '\n').replace(CONTROLS, '').replace(BIDI, '');
}

/**
 * Makes text safe to place inside a fence named `tag`: the closing tag (in any letter case, with
 * optional spaces) is broken so the text cannot end the fence early and speak outside it.
 */
export function defuseFence(text: string, tag: string): string {
  const escaped = tag.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&');
  return text.replace(new RegExp(`<(\\s*/?\\s*${escaped})`, 'giu'), '‹$1');
}
