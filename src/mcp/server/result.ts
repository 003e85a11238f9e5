/**
 * How a served call's answer is rendered. Failures a client should reason about are results with
 * `isError`, never protocol errors: a protocol error tells the client nothing it can act on.
 */
import type { CommandResult, CompletedOutcome } from '../../toolkit/tool.js';

/** The MCP tool result this server sends: one text block. */
export interface ServedResult {
  readonly content: { readonly type: 'text'; readonly text: string }[];
  readonly isError?: boolean;
  [key: string]: unknown;
}

/** A result carrying `text`, flagged as an error when `isError`. */
export function textResult(text: string, isError: boolean): ServedResult {
  return isError ? { content: [{ type: 'text', text }], isError: true } : { content: [{ type: 'text', text }] };
}

/**
 * Renders a completed outcome. A command's output travels in the `CommandResult` envelope with its
 * exit code, byte for byte what the agent loop shows its model; a non-zero exit is an answer, so
 * only the tool's own failure flag sets `isError`. An in-process tool's output is already the JSON
 * the client asked for and travels verbatim.
 */
export function outcomeResult(outcome: CompletedOutcome): ServedResult {
  const exec = outcome.exec;
  if (exec === undefined) return textResult(outcome.output, outcome.isError);
  const envelope: CommandResult = exec.truncated
    ? { command: exec.command, exit_code: exec.exitCode, output: outcome.output, truncated: true }
    : { command: exec.command, exit_code: exec.exitCode, output: outcome.output };
  return textResult(JSON.stringify(envelope), outcome.isError);
}

/** The denial a gated call gets: the same `allowed`/`reason` shape the agent loop uses, as an error. */
export function denialResult(reason: string): ServedResult {
  return textResult(JSON.stringify({ allowed: false, reason }), true);
}
