/**
 * The closed vocabularies telemetry records. A failing span carries an error class from this list,
 * never an error's own text, so nothing a model or a peer wrote can land in the attribute.
 */

/** `error.type` values. `_OTHER` (the conventions' fallback) marks a failure nobody classified. */
export const ERROR_CLASSES = [
  'timeout',
  'cancelled',
  'rate_limited',
  'unavailable',
  'auth',
  'invalid_request',
  'provider_error',
  'budget_exhausted',
  'tool_failed',
  'denied',
  'unknown_tool',
  'invalid_arguments',
  'crashed',
  'configuration',
  '_OTHER',
] as const;
export type ErrorClass = (typeof ERROR_CLASSES)[number];

/** Where a tool comes from, as `fisk.tool.kind`. */
export const TOOL_KINDS = ['command', 'builtin', 'remote_agent', 'remote_tool', 'mcp', 'function'] as const;
export type ToolKind = (typeof TOOL_KINDS)[number];

/**
 * Every way a tool call can end, as `fisk.tool.exit`. The span covers the whole handling, from
 * before the lookup, so a call that never ran (unknown, invalid, denied) is still a span.
 */
export const TOOL_EXITS = ['ok', 'failed', 'denied', 'unknown_tool', 'invalid_arguments', 'timeout', 'cancelled', 'crashed'] as const;
export type ToolExit = (typeof TOOL_EXITS)[number];

/** The error class a tool exit records; `undefined` for success. */
export function toolExitClass(exit: ToolExit): ErrorClass | undefined {
  switch (exit) {
    case 'ok':
      return undefined;
    case 'failed':
      return 'tool_failed';
    case 'denied':
      return 'denied';
    case 'unknown_tool':
      return 'unknown_tool';
    case 'invalid_arguments':
      return 'invalid_arguments';
    case 'timeout':
      return 'timeout';
    case 'cancelled':
      return 'cancelled';
    case 'crashed':
      return 'crashed';
  }
}

/** Which step of a hybrid knowledge search failed and left it lexical only. */
export const DEGRADE_REASONS = ['embed_query', 'vector_search'] as const;
export type DegradeReason = (typeof DEGRADE_REASONS)[number];

/**
 * How a piece of served work settled, as `fisk.serve.outcome`: what the worker did with it, not
 * only how its run ended. `retried` went back to the queue after a failure another attempt may get
 * past; `returned` went back unfinished by choice (a drain, a cancel); `taken_over` is held by
 * another worker, which stores its result.
 */
export const SERVED_OUTCOMES = [
  'completed',
  'failed',
  'dead',
  'retried',
  'returned',
  'taken_over',
  'suspended',
  'cancelled',
  'refused',
  'crashed',
] as const;
export type ServedOutcome = (typeof SERVED_OUTCOMES)[number];
