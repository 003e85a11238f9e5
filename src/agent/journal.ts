/**
 * The seam between the loop and durable storage. The loop appends in a fixed order: the assistant
 * turn before any of its tools run (so a crash mid-batch resumes without paying for the model call
 * again), each tool result as it completes, a staged grant after the call that triggered it is
 * answered, and one terminal entry. A backend maps these onto its own records. Entries with no
 * effect between them (a final turn and its terminal entry) may come as one batch.
 */
import type { Message, StopReason, ToolResultBlock, Usage } from '../llm/types.js';
import type { DelegatedUsage, Kind } from '../toolkit/tool.js';
import type { ApprovalOutcome } from './events.js';
import type { RunStatus } from './status.js';

/** The confirm gate's decision on a call, kept with its result so a replay shows it as the live run did. */
export interface GateNote {
  readonly outcome: ApprovalOutcome;
  /** The tag that gated the call. */
  readonly trigger: string;
  /** The command line the operator was shown. */
  readonly commandLine: string;
  /** With a decline: what the operator said to do instead. */
  readonly reason?: string;
}

/** One model call's result, written before any tool it asked for runs. */
export interface AssistantEntry {
  readonly type: 'assistant';
  /** The 0-based loop iteration. */
  readonly iteration: number;
  readonly message: Message;
  readonly stopReason: StopReason;
  readonly usage: Usage;
}

/** One tool call answered. */
export interface ToolResultEntry {
  readonly type: 'tool_result';
  readonly result: ToolResultBlock;
  readonly name: string;
  /** The accounting kind; `unknown` for a name no tool answers to. */
  readonly kind: Kind;
  /** How the confirm gate decided the call, when it was gated. */
  readonly gate?: GateNote;
  /** What a peer spent on the task the call delegated (kept in the run; not every backend stores it). */
  readonly delegated?: DelegatedUsage;
}

/** One tool call that will be answered later: never dispatched again. */
export interface ToolDeferredEntry {
  readonly type: 'tool_deferred';
  readonly toolUseId: string;
  readonly name: string;
  readonly kind: Kind;
  readonly reason: string;
}

/** A standing approval, written only once the call that earned it has been answered or deferred. */
export interface GrantEntry {
  readonly type: 'grant';
  readonly tool: string;
  /** The call whose approval earned the grant. */
  readonly toolUseId: string;
}

/** Why the run ended. */
export interface TerminalEntry {
  readonly type: 'terminal';
  readonly status: RunStatus;
  readonly message?: string;
}

export type JournalEntry = AssistantEntry | ToolResultEntry | ToolDeferredEntry | GrantEntry | TerminalEntry;

/**
 * Where a run's history goes. `append` must not resolve until the entry is as durable as the
 * backend promises; a rejection stops the run with an error rather than carrying on undurably.
 */
export interface RunJournal {
  append(entry: JournalEntry): Promise<void>;
  /**
   * Stores entries the loop writes back to back, with nothing between them that depends on the
   * first, as one durable step (a final model turn and the terminal entry: one fsync on the file
   * backend). It resolves only once all of them are as durable as `append` makes one. A journal
   * without it is given them one `append` at a time.
   */
  appendAll?(entries: readonly JournalEntry[]): Promise<void>;
  /**
   * Whether this process still owns the run. Checked as the last step before a tool's irreversible
   * effect, so a run taken over on a shared store stops there rather than at its next append.
   */
  stillOwned?(): Promise<boolean>;
}

/** A journal held in memory: what a run without durable storage uses, and what tests read. */
export class MemoryJournal implements RunJournal {
  readonly #entries: JournalEntry[] = [];

  append(entry: JournalEntry): Promise<void> {
    this.#entries.push(entry);
    return Promise.resolve();
  }

  appendAll(entries: readonly JournalEntry[]): Promise<void> {
    this.#entries.push(...entries);
    return Promise.resolve();
  }

  /** A copy of every entry, in order. */
  entries(): JournalEntry[] {
    return [...this.#entries];
  }
}
