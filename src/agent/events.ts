/**
 * The one stream everything a surface shows arrives on. The block shapes follow the a2a event
 * blocks (text, thinking, tool_call, tool_result, status) field for field, so the line surface,
 * the full-screen view, a remote peer and a journal replay render from the same values. Warning,
 * question, approval and crash are local additions the a2a protocol carries differently or not at all.
 */
import { GATE_OUTCOMES } from '../runstate/records.js';
import type { RefusalReason } from '../toolkit/invoke/types.js';
import type { Presentation } from '../toolkit/tool.js';
import type { RunPhase } from './status.js';

/** Prose from the model. */
export interface TextEvent {
  readonly type: 'text';
  readonly text: string;
  /** True for the run's answer; false for prose that accompanied tool calls. */
  readonly final: boolean;
}

/**
 * A piece of the answer as the model generates it, for a surface that shows text as it streams.
 * The whole text still arrives as a `text` event when the turn completes, so a surface that
 * ignores fragments loses nothing and journals are the same either way.
 */
export interface TextFragmentEvent {
  readonly type: 'text_fragment';
  readonly text: string;
}

/** Model reasoning, as the provider summarized it. Its signature never leaves the loop. */
export interface ThinkingEvent {
  readonly type: 'thinking';
  readonly text: string;
}

/** A tool call as the model made it (before any hook rewrote it). */
export interface ToolCallEvent {
  readonly type: 'tool_call';
  readonly id: string;
  readonly name: string;
  /** The parsed arguments; an unparsable input is carried as `{}` and answered as an error. */
  readonly input: Readonly<Record<string, unknown>>;
  /** How a surface shows the call; absent for an unknown tool. Local: not on the a2a wire. */
  readonly presentation?: Presentation;
  /** Where an imported tool runs: the peer agent serving it, or `mcp:<server>`. Local: not on the a2a wire. */
  readonly via?: string;
}

/** What a command ran, on the result of a command tool. */
export interface ExecInfo {
  readonly command: string;
  readonly exit_code: number;
  readonly truncated: boolean;
}

/** The answer to one tool call, exactly as the model receives it (after hooks and PII scanning). */
export interface ToolResultEvent {
  readonly type: 'tool_result';
  readonly call_id: string;
  readonly is_error: boolean;
  /** For a command, its captured output (not the envelope); otherwise the tool's own text. */
  readonly output: string;
  readonly exec?: ExecInfo;
  /**
   * Set when the tool never ran (an unknown tool, invalid arguments, a declined approval), so a
   * surface shows a refusal rather than a result. Local: the a2a block carries only the output.
   */
  readonly refused?: RefusalReason;
}

/**
 * A line of a running call's progress: what the agent a task was delegated to is doing. Local:
 * the peer's own events stay with the peer, this run shows only these lines.
 */
export interface ProgressEvent {
  readonly type: 'progress';
  readonly call_id: string;
  /** The tool whose call this is (`delegate_<alias>`). */
  readonly tool: string;
  /** Sanitized: the peer's words, control sequences stripped. */
  readonly text: string;
}

/** Something the operator should know that is not a failure of the run. */
export interface WarningEvent {
  readonly type: 'warning';
  readonly text: string;
}

/** Cumulative token usage, in the a2a field names. */
export interface UsageInfo {
  readonly input_tokens: number;
  readonly output_tokens: number;
}

/** Where the run is. */
export interface StatusEvent {
  readonly type: 'status';
  readonly iteration: number;
  readonly phase: RunPhase;
  readonly usage: UsageInfo;
}

/**
 * What the confirm gate decided for one gated call: approved by the operator now (once, or for the
 * rest of the run), by a standing approval, or out of band while the run was suspended (`_earlier`);
 * declined by the operator, out of band, or because nobody can approve it here; or left undecided
 * because the run was cancelled while it waited.
 */
export const APPROVAL_OUTCOMES = GATE_OUTCOMES;
export type ApprovalOutcome = (typeof APPROVAL_OUTCOMES)[number];

/** The confirm gate decided a gated call. Local: the a2a wire carries the refusal in the tool result. */
export interface ApprovalEvent {
  readonly type: 'approval';
  readonly call_id: string;
  readonly tool: string;
  /** The tag that gated the call: `ai:confirm`, or the `harness.confirm_tags` entry the tool carries. */
  readonly trigger: string;
  readonly outcome: ApprovalOutcome;
  /** With a decline: what the operator said to do instead, as the model receives it. */
  readonly reason?: string;
}

/** The kinds of question a run puts to a person. */
export const QUESTION_KINDS = ['approval', 'confirm', 'select', 'input'] as const;
export type QuestionKind = (typeof QUESTION_KINDS)[number];

/** A question is being put to the operator; the run is blocked until it is answered. */
export interface QuestionEvent {
  readonly type: 'question';
  /** Set when the question is answered through the run handle (`RunHandle.answer`), not a prompter. */
  readonly id?: string;
  readonly kind: QuestionKind;
  /** Sanitized question text (for approval, the resolved command line). */
  readonly text: string;
  readonly options?: readonly string[];
  /** For an approval: the tool and the tag that gated the call. */
  readonly tool?: string;
  readonly trigger?: string;
}

/**
 * The run crashed. The stack goes to the sink and nowhere else: it is for the operator's terminal
 * or log, never for the model or a remote peer, so a surface forwarding events must drop it.
 */
export interface CrashEvent {
  readonly type: 'crash';
  readonly message: string;
  readonly stack: string;
}

/** Every event a run emits. */
export type AgentEvent =
  | TextEvent
  | TextFragmentEvent
  | ThinkingEvent
  | ToolCallEvent
  | ToolResultEvent
  | ProgressEvent
  | WarningEvent
  | StatusEvent
  | QuestionEvent
  | ApprovalEvent
  | CrashEvent;

export const AGENT_EVENT_TYPES = [
  'text',
  'text_fragment',
  'thinking',
  'tool_call',
  'tool_result',
  'progress',
  'warning',
  'status',
  'question',
  'approval',
  'crash',
] as const;
export type AgentEventType = (typeof AGENT_EVENT_TYPES)[number];

/**
 * Receives a run's events in order, on the run's own call chain. `emit` is synchronous on purpose:
 * a sink that needs to do slow work queues it, so a slow terminal cannot reorder the stream.
 */
export interface EventSink {
  emit(event: AgentEvent): void;
}

/** A sink that drops everything. */
export const DISCARD_EVENTS: EventSink = Object.freeze({ emit: () => undefined });

/** A sink that keeps every event, for tests and for hosts that render after the run. */
export class EventLog implements EventSink {
  readonly events: AgentEvent[] = [];
  emit(event: AgentEvent): void {
    this.events.push(event);
  }
  /** The events of one type, in order. */
  ofType<T extends AgentEventType>(type: T): Extract<AgentEvent, { type: T }>[] {
    return this.events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type);
  }
}
