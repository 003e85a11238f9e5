/**
 * Harness failures from the toolkit. Failures a model should reason about (a refused argument, a
 * non-zero exit) are returned as outcomes instead; these are the ones that stop a load or a run.
 */
import { FiskError } from '../errors/fisk-error.js';
import type { ErrorCategory } from '../errors/fisk-error.js';

/** The closed set of toolkit failure classes. */
export const TOOLKIT_ERROR_CODES = [
  'spec', // a tool spec breaks a construction rule (gated remote tool, built-in without exposure, ...)
  'collision', // two sources claim one tool name
  'introspect', // the application could not be introspected or its model is unusable
  'global_flag', // a `global_flags` entry names no exposable global flag
  'filter', // an include/exclude pattern is not a valid regular expression
  'sandbox', // a configured sandbox cannot run here (no bubblewrap, no namespaces, not Linux)
] as const;
export type ToolkitErrorCode = (typeof TOOLKIT_ERROR_CODES)[number];

/** A toolkit failure with a closed `code`; the message names what to change. */
export class ToolkitError extends FiskError<ToolkitErrorCode> {
  constructor(code: ToolkitErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = 'ToolkitError';
  }

  /** An application that cannot be introspected fails at run time; everything else is the operator's file. */
  get category(): ErrorCategory {
    return this.code === 'introspect' ? 'runtime' : 'configuration';
  }
}
