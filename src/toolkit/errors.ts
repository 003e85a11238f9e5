/**
 * Harness failures from the toolkit. Failures a model should reason about (a refused argument, a
 * non-zero exit) are returned as outcomes instead; these are the ones that stop a load or a run.
 */

/** The closed set of toolkit failure classes. */
export const TOOLKIT_ERROR_CODES = [
  'spec', // a tool spec breaks a construction rule (gated remote tool, built-in without exposure, ...)
  'collision', // two sources claim one tool name
  'introspect', // the application could not be introspected or its model is unusable
  'global_flag', // a `global_flags` entry names no exposable global flag
  'filter', // an include/exclude pattern is not a valid regular expression
] as const;
export type ToolkitErrorCode = (typeof TOOLKIT_ERROR_CODES)[number];

/** A toolkit failure with a closed `code`; the message names what to change. */
export class ToolkitError extends Error {
  readonly code: ToolkitErrorCode;

  constructor(code: ToolkitErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ToolkitError';
    this.code = code;
  }
}
