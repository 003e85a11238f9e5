/**
 * The TypeScript shape of every a2a message, field for field with the schemas in `schemas.ts`
 * (`schemas.test.ts` proves the two agree). A message is one flat object: header fields and body
 * fields side by side, the protocol id the only discriminator.
 */
import type { ReasonedDecline } from '../toolkit/tool.js';
import type { ProtocolId } from './protocol.js';

export interface Identity {
  readonly name: string;
  readonly instance?: string;
}

/** The framing every message carries. Sender and recipient are assertions for logs, never for authorization. */
export interface Header<P extends ProtocolId = ProtocolId> {
  readonly protocol: P;
  readonly id: string;
  readonly request: string;
  readonly conversation: string;
  readonly parent?: string;
  readonly sequence: number;
  readonly time: string;
  readonly sender: Identity;
  readonly recipient?: Identity;
  readonly must_understand?: boolean;
}

export const STOP_REASONS = [
  'end_turn',
  'max_tokens',
  'refusal',
  'canceled',
  'error',
  'budget_exhausted',
  'suspended',
  'max_iterations',
] as const;
export type StopReason = (typeof STOP_REASONS)[number];

export interface Budget {
  readonly max_tokens?: number;
  readonly max_iterations?: number;
  /** A Go-style duration (`90s`, `2m`). */
  readonly call_timeout?: string;
}

export interface Usage {
  readonly input_tokens: number;
  readonly output_tokens: number;
}

export interface Exec {
  readonly command?: string;
  readonly exit_code?: number;
  readonly truncated?: boolean;
}

export interface ThinkingBlock {
  readonly type: 'thinking';
  readonly text: string;
  /** Display and audit only: never replayed into a model across the agent boundary. */
  readonly signature?: string;
  readonly provider?: string;
}
export interface TextBlock {
  readonly type: 'text';
  readonly text: string;
}
export interface ToolCallBlock {
  readonly type: 'tool_call';
  readonly id: string;
  readonly name: string;
  readonly input?: Readonly<Record<string, unknown>>;
}
export interface ToolResultBlock {
  readonly type: 'tool_result';
  readonly call_id: string;
  readonly is_error?: boolean;
  readonly output?: string;
  readonly exec?: Exec;
  /**
   * Set when the tool never ran (unknown, invalid arguments, denied, ...), so the caller shows a
   * refusal rather than a result. Outgoing: one of `REFUSAL_REASONS`. Incoming: carried as sent,
   * since a newer peer may know more. Sent only in a prompt's reply set, which only this project's
   * agents serve.
   */
  readonly refused?: string;
}
export interface AgentCallBlock {
  readonly type: 'agent_call';
  readonly id: string;
  readonly name: string;
  readonly task: string;
}
export interface StatusBlock {
  readonly type: 'status';
  readonly iteration?: number;
  readonly phase?: string;
  readonly usage?: Usage;
}
export const BLOCK_TYPES = ['thinking', 'text', 'tool_call', 'tool_result', 'agent_call', 'status'] as const;
export type BlockType = (typeof BLOCK_TYPES)[number];
export type KnownBlock = ThinkingBlock | TextBlock | ToolCallBlock | ToolResultBlock | AgentCallBlock | StatusBlock;

/**
 * A block of a kind this build does not know, as decoded from a peer: its bytes are kept so a
 * surface can show or forward them. Never sent: an outgoing event validates strictly.
 */
export interface OpaqueBlock {
  readonly type: 'opaque';
  readonly kind: string;
  readonly raw: Readonly<Record<string, unknown>>;
}
export type Block = KnownBlock | OpaqueBlock;

export interface DelegationBody {
  readonly prompt: string;
  readonly context?: string;
  readonly tool_hints?: readonly string[];
  readonly budget?: Budget;
  readonly stream?: boolean;
}

export type RequestMessage = Header<'io.choria.fisk-ai.v1.request'> & DelegationBody;
/** A request continuing an earlier conversation, which its header names. */
export type FollowupMessage = Header<'io.choria.fisk-ai.v1.followup'> & DelegationBody;
export type EventMessage = Header<'io.choria.fisk-ai.v1.event'> & { readonly block: Block };
export type ResultMessage = Header<'io.choria.fisk-ai.v1.result'> & {
  /** Outgoing: one of STOP_REASONS. Incoming: carried as sent, since a newer peer may know more. */
  readonly stop_reason: string;
  readonly text?: string;
  readonly usage?: Usage;
};
export type ErrorMessage = Header<'io.choria.fisk-ai.v1.error'> & {
  readonly error: string;
  readonly stop_reason?: string;
  readonly code?: string;
};
export type CancelMessage = Header<'io.choria.fisk-ai.v1.cancel'> & { readonly reason?: string };
export type AckMessage = Header<'io.choria.fisk-ai.v1.ack'> & { readonly accepted: boolean; readonly reason?: string };
export type ToolRequestMessage = Header<'io.choria.fisk-ai.v1.tool.request'> & {
  readonly name: string;
  readonly input?: Readonly<Record<string, unknown>>;
};
export type ToolReplyMessage = Header<'io.choria.fisk-ai.v1.tool.reply'> & {
  /** A harness failure on the serving side; a non-zero exit is not one. */
  readonly is_error?: boolean;
  readonly output?: string;
  readonly exec?: Exec;
};
export type DiscoveryRequestMessage = Header<'io.choria.fisk-ai.v1.discovery.request'>;

export interface ToolDescriptor {
  readonly name: string;
  readonly description?: string;
  readonly input_schema?: Readonly<Record<string, unknown>>;
}
/** The agent card. */
export type DiscoveryReplyMessage = Header<'io.choria.fisk-ai.v1.discovery.reply'> & {
  readonly name: string;
  readonly version: string;
  readonly description?: string;
  readonly protocols?: readonly string[];
  readonly tools?: readonly ToolDescriptor[];
};

export const QUESTION_KINDS = ['approval', 'confirm', 'select', 'input'] as const;
export type QuestionKind = (typeof QUESTION_KINDS)[number];
/** A question from the served run to whoever delegated it, routed back by its minted id. */
export type QuestionMessage = Header<'io.choria.fisk-ai.v1.question'> & {
  readonly question: string;
  readonly kind: QuestionKind;
  readonly text: string;
  readonly options?: readonly string[];
  /** For an approval: the tool whose call waits, and the tag that gated it (both or neither). */
  readonly tool?: string;
  readonly trigger?: string;
};
/**
 * The answer to one question: approval `once`/`always`/`decline`, confirm a boolean, select/input a
 * string, `null` for none. A decline may carry `reason`, what the operator said to do instead.
 */
export type AnswerMessage = Header<'io.choria.fisk-ai.v1.answer'> & {
  readonly question: string;
  readonly value: string | boolean | null;
  readonly reason?: string;
};

/** An answer as the protocol's users give it: a wire value, or a decline with its reason. */
export type AnswerValue = string | boolean | null | ReasonedDecline;
/** Somebody is still there: from the caller it restarts a question's window, from the server the caller's idle wait. */
export type KeepaliveMessage = Header<'io.choria.fisk-ai.v1.keepalive'> & { readonly question?: string };
export type WarningMessage = Header<'io.choria.fisk-ai.v1.warning'> & { readonly text: string };
/** A fragment of model text streamed before its block is complete. */
export type TextFragmentMessage = Header<'io.choria.fisk-ai.v1.text'> & { readonly text: string };

/** How a hosted run asks its questions: through the caller's prompter, as events answered by id, or not at all. */
export const HOSTED_QUESTION_MODES = ['ask', 'events', 'none'] as const;
export type HostedQuestionMode = (typeof HOSTED_QUESTION_MODES)[number];

/** What a hosted run is asked to do: a new prompt (journaled with `checkpoint`), or a stored run to resume. */
export interface HostedRunStart {
  readonly prompt?: string;
  readonly resume?: string;
  readonly force?: boolean;
  readonly checkpoint?: boolean;
  /** The run id of a journaled run (`--name`). */
  readonly name?: string;
  readonly questions: HostedQuestionMode;
  /** An operator is at a chat surface. */
  readonly interactive?: boolean;
  readonly stream?: boolean;
  /** The model this turn (and a follow-up's later turns) uses instead of the agent's `llm.model`. */
  readonly model?: string;
}
/** Starts (or, with a header naming an earlier conversation, continues) a hosted run. */
export type RunStartMessage = Header<'io.choria.fisk-ai.v1.run.start'> & { readonly start: HostedRunStart };
/** How the hosted run began: the host's start details, as they are. */
export type RunStartedMessage = Header<'io.choria.fisk-ai.v1.run.started'> & { readonly started: Readonly<Record<string, unknown>> };
/** One event of the hosted run, as the host emitted it. */
export type RunEventMessage = Header<'io.choria.fisk-ai.v1.run.event'> & { readonly event: Readonly<Record<string, unknown>> };
/** One prompter call of the hosted run, put to the caller's own prompter; answered with `answer`. */
export type RunAskMessage = Header<'io.choria.fisk-ai.v1.run.ask'> & {
  readonly question: string;
  readonly call: Readonly<Record<string, unknown>>;
};
/**
 * Stop the run now: a running tool is killed (the a2a cancel only parks it). A hosted run takes it,
 * and so does a delegated prompt, whose caller sends the cancel after it for an agent that does not.
 */
export type RunAbortMessage = Header<'io.choria.fisk-ai.v1.run.abort'> & { readonly reason?: string };
/** How the hosted run ended (`outcome`), or why it never started (`failure`). */
export type RunOutcomeMessage = Header<'io.choria.fisk-ai.v1.run.outcome'> & {
  readonly outcome?: Readonly<Record<string, unknown>>;
  readonly failure?: RunFailure;
};

/**
 * Which error a hosted run's failure was raised as, so the client raises the same one: a
 * configuration error, a host error, or another (kept as its code and category).
 */
export const RUN_FAILURE_CLASSES = ['config', 'host', 'other'] as const;
export type RunFailureClass = (typeof RUN_FAILURE_CLASSES)[number];

/** Why a hosted run never started: the error's class, code, category and message, and a configuration error's issues. */
export interface RunFailure {
  readonly class?: RunFailureClass;
  readonly code: string;
  readonly category: string;
  readonly message: string;
  /** Each issue of a configuration error, with the key it names. */
  readonly issues?: readonly { readonly code: string; readonly key: string; readonly message: string; readonly at?: string }[];
}

/** Every message by its protocol id. */
export interface MessageMap {
  'io.choria.fisk-ai.v1.request': RequestMessage;
  'io.choria.fisk-ai.v1.event': EventMessage;
  'io.choria.fisk-ai.v1.result': ResultMessage;
  'io.choria.fisk-ai.v1.error': ErrorMessage;
  'io.choria.fisk-ai.v1.cancel': CancelMessage;
  'io.choria.fisk-ai.v1.ack': AckMessage;
  'io.choria.fisk-ai.v1.tool.request': ToolRequestMessage;
  'io.choria.fisk-ai.v1.tool.reply': ToolReplyMessage;
  'io.choria.fisk-ai.v1.discovery.request': DiscoveryRequestMessage;
  'io.choria.fisk-ai.v1.discovery.reply': DiscoveryReplyMessage;
  'io.choria.fisk-ai.v1.followup': FollowupMessage;
  'io.choria.fisk-ai.v1.question': QuestionMessage;
  'io.choria.fisk-ai.v1.answer': AnswerMessage;
  'io.choria.fisk-ai.v1.keepalive': KeepaliveMessage;
  'io.choria.fisk-ai.v1.warning': WarningMessage;
  'io.choria.fisk-ai.v1.text': TextFragmentMessage;
  'io.choria.fisk-ai.v1.run.start': RunStartMessage;
  'io.choria.fisk-ai.v1.run.started': RunStartedMessage;
  'io.choria.fisk-ai.v1.run.event': RunEventMessage;
  'io.choria.fisk-ai.v1.run.ask': RunAskMessage;
  'io.choria.fisk-ai.v1.run.abort': RunAbortMessage;
  'io.choria.fisk-ai.v1.run.outcome': RunOutcomeMessage;
}
export type Message = MessageMap[ProtocolId];

/** A message body without its header, as a caller builds it before stamping. */
export type BodyOf<P extends ProtocolId> = Omit<MessageMap[P], keyof Header>;
