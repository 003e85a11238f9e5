/**
 * Harness failures of a run. A failure the model should reason about (a tool that failed, a
 * denied call, an unknown tool) is never one of these: it is returned as data in a tool result.
 */
import { FiskError } from '../errors/fisk-error.js';
import type { ErrorCategory } from '../errors/fisk-error.js';

/** The closed set of run failure classes. */
export const AGENT_ERROR_CODES = [
  'model', // the model call failed (network, HTTP status, timeout)
  'journal', // a journal append failed, so the run cannot promise durability
  'hook', // a hook asked for something the loop refuses (a rewrite to an unknown tool, invalid JSON)
  'taken_over', // another runner claimed this run on a shared store
  'pii', // the PII scanner could not be built for a mode other than off
  'options', // runAgent was called with options it cannot honour
  'crashed', // an unexpected exception inside the run: a bug, not a model or tool failure
  'remote', // the agent a run was delegated to ended it with an error, or could not be followed to its end
] as const;
export type AgentErrorCode = (typeof AGENT_ERROR_CODES)[number];

/**
 * A run failure as returned in an outcome. It is a plain value rather than an `Error`, so it never
 * carries a stack: an outcome may cross to a remote peer, and a stack names this host's files.
 */
export interface RunError {
  readonly code: AgentErrorCode;
  readonly message: string;
  /**
   * Set when what failed may work if the run is tried again later (a model service or a store
   * that timed out or was unavailable), as decided where the failure was raised.
   */
  readonly retryable?: boolean;
}

/** A harness failure raised inside the loop and turned into an outcome at its edge. */
export class AgentError extends FiskError<AgentErrorCode> {
  constructor(code: AgentErrorCode, message: string, options?: { cause?: unknown; retryable?: boolean }) {
    super(code, message, options);
    this.name = 'AgentError';
  }

  get category(): ErrorCategory {
    switch (this.code) {
      case 'pii':
        return 'configuration';
      case 'options':
        return 'usage';
      case 'crashed':
        return 'internal';
      case 'model':
      case 'journal':
      case 'hook':
      case 'taken_over':
      case 'remote':
        return 'runtime';
      default: {
        const never: never = this.code;
        return never;
      }
    }
  }

  /** The stackless value an outcome carries. */
  toRunError(): RunError {
    return { code: this.code, message: this.message, ...(this.retryable ? { retryable: true } : {}) };
  }
}

/** The message a crashed outcome carries in place of the exception's own text and stack. */
export const CRASH_MESSAGE = 'internal error: fisk-ai crashed (a bug, not a model or tool failure); please report it';
