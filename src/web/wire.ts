/**
 * What the server sends the browser page, as types only: the page imports these with `import type`,
 * so a change here is a compile error on the page and no server code reaches its bundle. Keep this
 * file free of runtime imports and of modules that need Node.
 */
import type { AgentEvent } from '../agent/events.js';
import type { RunOutcome } from '../agent/outcome.js';
import type { QuestionAnswer } from '../host/question-answer.js';
import type { GateOutcome } from '../runstate/records.js';

/** Who answered a question: the controlling page, or nobody because no page was there to ask. */
export type AnsweredBy = 'page' | 'no_page';

/**
 * How the confirm gate decided a journaled call, for a replay: the live run's question (`text`, the
 * command line shown) and the gate's answer in one, so the page notes it as it noted it live.
 */
export interface ReplayedDecision {
  readonly type: 'decision';
  readonly call_id: string;
  readonly tool: string;
  readonly text: string;
  readonly trigger: string;
  readonly outcome: GateOutcome;
  readonly reason?: string;
}

/** A run's event, fit for a page. */
export type PageAgentEvent = Exclude<AgentEvent, { type: 'crash' }> | { readonly type: 'crash'; readonly message: string };

/** What the page receives: the run's own events (cleaned, a crash without its stack) and the conversation's. */
export type WebEvent =
  | PageAgentEvent
  | ReplayedDecision
  | { readonly type: 'prompt'; readonly text: string }
  | { readonly type: 'run'; readonly runId: string | undefined; readonly resumed: boolean }
  /** A question was answered; `answer` is what the run received. */
  | { readonly type: 'answered'; readonly id: string; readonly answer: QuestionAnswer; readonly by: AnsweredBy }
  | {
      readonly type: 'outcome';
      readonly status: RunOutcome['status'];
      readonly answer: string;
      readonly message: string;
      readonly runId: string | undefined;
    }
  | { readonly type: 'reopened'; readonly runId: string; readonly status: string; readonly resumable: boolean }
  | { readonly type: 'error'; readonly message: string };

/**
 * An event as a tab receives it: stamped with the server's clock when it happened (`at`, epoch
 * milliseconds), so a page reloaded during a model call counts from when the call began.
 */
export type StampedEvent = WebEvent & { readonly at: number };

/** Sent to one tab only. */
export type TabEvent =
  /**
   * `key` is only ever sent to the controlling tab: shown again when it reconnects after a reload, it
   * keeps control. `now` is the server's clock, against which the page reads every event's `at`.
   */
  | {
      readonly type: 'control';
      readonly tab: string;
      readonly control: boolean;
      readonly busy: boolean;
      readonly agent: string;
      readonly now: number;
      readonly key?: string;
    }
  | { readonly type: 'reset' };
