/**
 * Record bodies built from the neutral types a run already holds, so a runner journals with one
 * call per event and never touches the wire shapes. Pass the result to `appendNext`.
 */
import type { Message, StopReason, ToolResultBlock, Usage } from '../llm/types.js';
import { encodeMessage, encodeToolResult } from './message-codec.js';
import { FORMAT_VERSION, protocolOf } from './records.js';
import type {
  ApprovalDecisionValue,
  DelegatedPayload,
  Fingerprint,
  GatePayload,
  RecordKind,
  RecordOfKind,
  TerminalReason,
} from './records.js';

/** A record body of one kind. */
export type Body<K extends RecordKind> = Omit<RecordOfKind<K>, 'seq'>;

/** The first record of a run. `prompt` is the initial query; the conversation's first message is rebuilt from it. */
export function metaBody(m: {
  readonly runId: string;
  readonly created: Date;
  readonly fingerprint: Fingerprint;
  readonly prompt: string;
  readonly interactive?: boolean;
}): Body<'meta'> {
  return {
    protocol: protocolOf('meta'),
    meta: {
      version: FORMAT_VERSION,
      run_id: m.runId,
      created: m.created.toISOString(),
      fingerprint: m.fingerprint,
      prompt: m.prompt,
      ...(m.interactive === true ? { interactive: true } : {}),
    },
  };
}

/** One model call's result; journal it before running any of its tools. */
export function assistantBody(a: {
  readonly iteration: number;
  readonly message: Message;
  readonly stopReason?: StopReason;
  readonly usage: Usage;
}): Body<'assistant'> {
  return {
    protocol: protocolOf('assistant'),
    assistant: {
      iteration: a.iteration,
      message: encodeMessage(a.message),
      ...(a.stopReason !== undefined ? { stop_reason: a.stopReason.raw } : {}),
      in_tokens: a.usage.input,
      out_tokens: a.usage.output,
      ...(a.usage.cacheRead > 0 ? { cache_read_tokens: a.usage.cacheRead } : {}),
      ...(a.usage.cacheWrite > 0 ? { cache_create_tokens: a.usage.cacheWrite } : {}),
    },
  };
}

/** A follow-up the operator typed (only the new blocks). */
export function userBody(message: Message): Body<'user'> {
  return { protocol: protocolOf('user'), user: { message: encodeMessage({ role: 'user', content: message.content }) } };
}

/** One tool result, journaled as the tool completes. */
export function toolResultBody(
  result: ToolResultBlock,
  opts: { readonly remote?: boolean; readonly gate?: GatePayload; readonly delegated?: DelegatedPayload } = {},
): Body<'tool_result'> {
  return {
    protocol: protocolOf('tool_result'),
    tool_result: {
      tool_use_id: result.toolUseId,
      result: encodeToolResult(result),
      ...(opts.remote === true ? { remote: true } : {}),
      ...(opts.gate === undefined ? {} : { gate: opts.gate }),
      ...(opts.delegated === undefined ? {} : { delegated: opts.delegated }),
    },
  };
}

/** A call the tool will answer later. Never optional: skipping it would dispatch the call again. */
export function deferralBody(toolUseId: string, tool: string, note?: string): Body<'deferral'> {
  return {
    protocol: protocolOf('deferral'),
    deferral: { tool_use_id: toolUseId, tool, ...(note !== undefined && note !== '' ? { note } : {}) },
  };
}

/** A standing approval, journaled after the call that triggered it was answered or deferred. */
export function grantBody(tool: string, toolUseId: string): Body<'grant'> {
  return { protocol: protocolOf('grant'), optional: true, grant: { tool, tool_use_id: toolUseId } };
}

/** An operator's out-of-band answer to one gated call; `reason`, with a decline, says what to do instead. */
export function approvalBody(toolUseId: string, decision: ApprovalDecisionValue, by?: string, reason?: string): Body<'approval'> {
  return {
    protocol: protocolOf('approval'),
    optional: true,
    approval: {
      tool_use_id: toolUseId,
      decision,
      ...(by !== undefined ? { by } : {}),
      ...(reason !== undefined && reason !== '' && decision === 'decline' ? { reason } : {}),
    },
  };
}

/** The record a resume writes before anything else. */
export function claimBody(by: string, at: Date = new Date()): Body<'claim'> {
  return { protocol: protocolOf('claim'), optional: true, claim: { by, at: at.toISOString() } };
}

/** Why the run ended. */
export function terminalBody(reason: TerminalReason, message?: string): Body<'terminal'> {
  return {
    protocol: protocolOf('terminal'),
    terminal: { reason, ...(message !== undefined && message !== '' ? { message } : {}) },
  };
}

/** The memory keys read by this run and their revisions; written after the terminal record. */
export function memoryScopeBody(revisions: Readonly<Record<string, number>>): Body<'memory_scope'> {
  return { protocol: protocolOf('memory_scope'), optional: true, memory_scope: { revisions: { ...revisions } } };
}
