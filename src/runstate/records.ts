/**
 * The journal records as they are stored: one JSON object per record, the protocol id in the body
 * so a record read anywhere can be validated without knowing where it came from. Field names
 * follow the original implementation's journal so runs written by either can be read by both.
 *
 * These are the wire shapes (snake_case, base64 signatures, raw JSON tool inputs); the neutral
 * conversation types of `llm` are converted at the edge by `message-codec.ts`.
 */

import type { ToolImageType } from '../llm/types.js';

/** The journal format version. A journal of any other version is refused in both directions. */
export const FORMAT_VERSION = 3;

/** The namespace every record's protocol id lives under. */
export const PROTOCOL_PREFIX = 'io.choria.fisk-ai.v1.session.';

/** The record kinds; each is also the name of the record's single payload key. */
export const RECORD_KINDS = [
  'meta',
  'assistant',
  'user',
  'tool_result',
  'deferral',
  'grant',
  'approval',
  'claim',
  'terminal',
  'memory_scope',
] as const;
export type RecordKind = (typeof RECORD_KINDS)[number];

/** A record's protocol id, `io.choria.fisk-ai.v1.session.<kind>`. */
export type ProtocolId<K extends RecordKind = RecordKind> = `io.choria.fisk-ai.v1.session.${K}`;

/** The protocol id of a record kind. */
export function protocolOf<K extends RecordKind>(kind: K): ProtocolId<K> {
  return `${PROTOCOL_PREFIX}${kind}`;
}

/**
 * Kinds that may carry the `optional` flag: a reader that does not know them and skips them
 * behaves more conservatively (asks again, authorizes less), never differently. A deferral must
 * never be optional: skipping it would dispatch a call that promised to answer later.
 */
export const OPTIONAL_KINDS = ['grant', 'approval', 'claim', 'memory_scope'] as const satisfies readonly RecordKind[];
export type OptionalKind = (typeof OPTIONAL_KINDS)[number];

/** Why a run ended. Only `completed` is final; every other reason may be resumed. */
export const TERMINAL_REASONS = ['completed', 'suspended', 'error', 'budget', 'max_iterations'] as const;
export type TerminalReason = (typeof TERMINAL_REASONS)[number];

/** How thinking was requested, as stamped into the fingerprint. */
export const FINGERPRINT_THINKING = ['off', 'summarized'] as const;
export type FingerprintThinking = (typeof FINGERPRINT_THINKING)[number];

/** An out-of-band answer to a gated call that was waiting for an operator. */
export const APPROVAL_DECISIONS = ['approve', 'decline'] as const;
export type ApprovalDecisionValue = (typeof APPROVAL_DECISIONS)[number];

/** What the confirm gate decided for a gated call (the run's `approval` event outcomes). */
export const GATE_OUTCOMES = [
  'approved_once',
  'approved_for_run',
  'approved_by_grant',
  'approved_earlier',
  'declined',
  'declined_earlier',
  'no_operator',
  'cancelled',
] as const;
export type GateOutcome = (typeof GATE_OUTCOMES)[number];

/** How a gated call was decided, kept with its result so a replay shows the decision as the live run did. */
export interface GatePayload {
  readonly outcome: GateOutcome;
  /** The tag that gated the call. */
  readonly trigger: string;
  /** The command line the operator was shown. */
  readonly command_line: string;
  /** With a decline: what the operator said to do instead. */
  readonly reason?: string;
}

/** A single text tool result, as stored. */
export interface WireToolResult {
  readonly tool_use_id: string;
  readonly content: string;
  readonly is_error?: boolean;
  /** Images the tool returned (an MCP server's), absent when none. */
  readonly images?: readonly WireToolImage[];
}

/** One image of a tool result: its media type and standard base64 data. */
export interface WireToolImage {
  readonly media_type: ToolImageType;
  readonly data: string;
}

/**
 * One stored content block: an object with exactly one key naming its kind. `input` and `raw`
 * hold the model's or provider's JSON embedded as JSON; text that was not valid JSON is stored as
 * a JSON string (tool inputs are always objects, so a string is unambiguous).
 */
export type WireBlock =
  | { readonly text: { readonly text: string } }
  | { readonly thinking: { readonly text?: string; readonly signature?: string } }
  | { readonly tool_use: { readonly id: string; readonly name: string; readonly input: unknown } }
  | { readonly tool_result: WireToolResult }
  | { readonly provider: { readonly kind: string; readonly raw: unknown } };

/** One stored message. `content` may be `null` for an empty message (as the original wrote it). */
export interface WireMessage {
  readonly role: 'user' | 'assistant';
  readonly content: readonly WireBlock[] | null;
}

/**
 * The configuration a run was written under. Every field is always written; all are optional to
 * the schema so a journal from a build that stamped fewer fields still reads.
 */
export interface Fingerprint {
  readonly provider?: string;
  readonly model?: string;
  /** Hex SHA-256 of the system prompt segments; the prompt itself is never stored. */
  readonly system_hash?: string;
  /** Hex SHA-256 of the tool definitions sent to the model. */
  readonly tools_hash?: string;
  readonly thinking_mode?: FingerprintThinking;
  readonly max_tokens?: number;
  readonly max_iterations?: number;
  /**
   * What each tool's process could reach, as canonical JSON (`sandboxSummary`); absent when no
   * tool ran sandboxed. A resume under a weaker sandbox is refused unless forced.
   */
  readonly sandbox?: string;
}

/** The first record of every run (sequence 1). */
export interface MetaPayload {
  readonly version: number;
  readonly run_id: string;
  /** RFC 3339 time the run was created. */
  readonly created: string;
  readonly fingerprint: Fingerprint;
  /** The initial prompt; the conversation's first user message is rebuilt from it. */
  readonly prompt?: string;
  /** Set for a chat run that keeps taking follow-ups. */
  readonly interactive?: boolean;
}

/** One model call's result, written before any of its tools run. */
export interface AssistantPayload {
  /** The 0-based loop iteration that made the call. */
  readonly iteration: number;
  readonly message: WireMessage;
  readonly stop_reason?: string;
  readonly in_tokens: number;
  readonly out_tokens: number;
  readonly cache_read_tokens?: number;
  readonly cache_create_tokens?: number;
}

/** A follow-up typed by the operator: only the new block(s). */
export interface UserPayload {
  readonly message: WireMessage;
}

/** One tool result, written as each tool completes. */
export interface ToolResultPayload {
  readonly tool_use_id: string;
  readonly result: WireToolResult;
  /** Set when the tool ran on a remote agent. */
  readonly remote?: boolean;
  /** Set for a call the confirm gate decided. */
  readonly gate?: GatePayload;
  /** Set for a call that delegated a task: what the peer reported spending on it. */
  readonly delegated?: DelegatedPayload;
}

/** A peer's reported tokens for a delegated task, and whether they count against this run's budget. */
export interface DelegatedPayload {
  readonly input_tokens: number;
  readonly output_tokens: number;
  readonly counts_budget?: boolean;
}

/** A tool said it will answer later; the call is never dispatched again. */
export interface DeferralPayload {
  readonly tool_use_id: string;
  readonly tool: string;
  /** What the tool said about the wait, for the operator. */
  readonly note?: string;
}

/** A standing approval for a tool, written after the call that triggered it resolved. */
export interface GrantPayload {
  readonly tool: string;
  readonly tool_use_id: string;
}

/** An operator's answer to one gated call, supplied while the run was suspended. */
export interface ApprovalPayload {
  readonly tool_use_id: string;
  readonly decision: ApprovalDecisionValue;
  readonly by?: string;
  /** With a decline: what the operator said to do instead, sent to the model with the refusal. */
  readonly reason?: string;
}

/** Written first on resume; moving the tail refuses any older writer. The payload is diagnostic. */
export interface ClaimPayload {
  /** Who took the run (host and process). */
  readonly by: string;
  /** RFC 3339 time of the claim. */
  readonly at: string;
}

/** Why the run ended. */
export interface TerminalPayload {
  readonly reason: TerminalReason;
  /** The error text, for `error`. */
  readonly message?: string;
}

/** The memory keys this run has read and at which revision; newest wins on replay. */
export interface MemoryScopePayload {
  readonly revisions: Readonly<Record<string, number>>;
}

/** The payload type of each record kind. */
export interface PayloadOf {
  readonly meta: MetaPayload;
  readonly assistant: AssistantPayload;
  readonly user: UserPayload;
  readonly tool_result: ToolResultPayload;
  readonly deferral: DeferralPayload;
  readonly grant: GrantPayload;
  readonly approval: ApprovalPayload;
  readonly claim: ClaimPayload;
  readonly terminal: TerminalPayload;
  readonly memory_scope: MemoryScopePayload;
}

/** A record of one kind: the envelope plus exactly one payload key matching the protocol. */
export type RecordOfKind<K extends RecordKind> = {
  /** Monotonic from 1; the ordering authority. */
  readonly seq: number;
  readonly protocol: ProtocolId<K>;
  /** Only on the kinds in `OPTIONAL_KINDS`. */
  readonly optional?: K extends OptionalKind ? boolean : never;
} & { readonly [P in K]: PayloadOf[K] };

/** Any known journal record. */
export type SessionRecord = { [K in RecordKind]: RecordOfKind<K> }[RecordKind];

/**
 * A record of a protocol this build does not know, kept only because it carried the optional
 * flag; the fold skips it.
 */
export interface UnknownRecord {
  readonly seq: number;
  readonly protocol: string;
  readonly optional: true;
  readonly unknown: true;
}

/** A record as read back: a known record, or an optional one from a newer build. */
export type StoredRecord = SessionRecord | UnknownRecord;

/** A record without its sequence, for `appendNext`. */
export type RecordBody = { [K in RecordKind]: Omit<RecordOfKind<K>, 'seq'> }[RecordKind];

/** Narrows a record to its kind. */
export function recordKind(record: SessionRecord): RecordKind {
  return record.protocol.slice(PROTOCOL_PREFIX.length) as RecordKind;
}

/** Whether a read-back record is one this build knows. */
export function isKnownRecord(record: StoredRecord): record is SessionRecord {
  return !('unknown' in record);
}
