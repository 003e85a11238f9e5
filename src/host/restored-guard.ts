/**
 * The PII guard over a restored conversation. A resumed run sends what the journal holds without
 * passing it through UserPromptSubmit or PostToolUse again, and a journal may have been written
 * under a weaker `harness.pii.mode` than the one the run resumes under. So before the first model
 * call of a resume, every user text and tool result it would send is scanned here.
 */
import type { PiiMode } from '../config/types.js';
import { PII_WITHHELD } from '../agent/pii/guard.js';
import { defaultScanner } from '../agent/pii/scanner.js';
import type { PiiScanner } from '../agent/pii/scanner.js';
import type { ResumedCheckpoint } from '../agent/checkpoint.js';
import type { EventSink } from '../agent/events.js';
import type { PendingToolBatch } from '../agent/run-agent.js';
import type { ContentBlock, Message, ToolResultBlock } from '../llm/types.js';
import { HostError } from './errors.js';

/** Why a resume under `reject` is refused. */
export const PII_RESUME_REJECTED =
  'the journaled conversation contains personal or secret data in what the operator wrote and harness.pii.mode is reject, so it was not resumed and nothing was sent; set harness.pii.mode to redact to resume it with that data redacted';

/** What a resume may send, after the guard. */
export interface GuardedRestore {
  readonly history: readonly Message[];
  readonly pendingBatch: PendingToolBatch | undefined;
  /** The kinds of data found, for the one operator warning; empty when nothing was found. */
  readonly kinds: readonly string[];
}

/**
 * Scans the restored `history` and the results of a pending batch under `mode`. Under `redact`
 * user text and tool results are redacted; under `reject` a tool result with a hit is withheld (as
 * a live run would), and user text with a hit refuses the resume with a `HostError`. A scan that
 * throws counts as a hit. Under `off` everything is returned as it is.
 */
export function guardRestored(
  mode: PiiMode,
  history: readonly Message[],
  pendingBatch: PendingToolBatch | undefined,
  scanner?: PiiScanner,
): GuardedRestore {
  if (mode === 'off') return { history, pendingBatch, kinds: [] };
  const scan = scanner ?? defaultScanner();
  const kinds = new Set<string>();
  const check = (text: string): string | undefined => {
    let r;
    try {
      r = scan.redact(text);
    } catch {
      kinds.add('unscannable');
      return undefined;
    }
    if (r.kinds.length === 0) return text;
    for (const k of r.kinds) kinds.add(k);
    return mode === 'redact' ? r.text : undefined;
  };
  const result = (b: ToolResultBlock): ToolResultBlock => {
    const text = check(b.content);
    if (text === b.content) return b;
    if (text === undefined) {
      // withheld: the images go with the text they came with
      const { images: _dropped, ...rest } = b;
      return { ...rest, content: PII_WITHHELD };
    }
    return { ...b, content: text };
  };
  const block = (b: ContentBlock, role: Message['role']): ContentBlock => {
    if (b.type === 'tool_result') return result(b);
    if (b.type !== 'text' || role !== 'user') return b;
    const text = check(b.text);
    if (text === undefined) throw new HostError('resume', PII_RESUME_REJECTED);
    return text === b.text ? b : { ...b, text };
  };
  const guarded = history.map((m) => ({ ...m, content: m.content.map((b) => block(b, m.role)) }));
  const batch =
    pendingBatch === undefined
      ? undefined
      : { message: pendingBatch.message, results: new Map([...pendingBatch.results].map(([id, r]) => [id, result(r)])) };
  return { history: guarded, pendingBatch: batch, kinds: [...kinds] };
}

/**
 * Applies {@link guardRestored} to a claimed resume: the run continues with the guarded history
 * and pending results, and the operator is warned once. A refusal releases the claim before it
 * throws, so the run can be resumed again under another mode.
 */
export async function guardedResume(claimed: ResumedCheckpoint, mode: PiiMode, events: EventSink): Promise<ResumedCheckpoint> {
  // the resumed options carry the pending batch beside the fields a fresh checkpoint has
  const options = claimed.options as ResumedCheckpoint['options'] & { readonly pendingBatch?: PendingToolBatch };
  let guarded: GuardedRestore;
  try {
    guarded = guardRestored(mode, options.history ?? [], options.pendingBatch);
  } catch (err) {
    await claimed.journal.close();
    throw err;
  }
  if (guarded.kinds.length > 0) {
    const what = mode === 'redact' ? 'redacted' : 'withheld';
    events.emit({
      type: 'warning',
      text: `PII (${guarded.kinds.join(', ')}) found in the resumed conversation and ${what} before it reached the model`,
    });
  }
  const next = { ...options, history: guarded.history };
  if (guarded.pendingBatch !== undefined)
    return { ...claimed, options: { ...next, pendingBatch: guarded.pendingBatch } as ResumedCheckpoint['options'] };
  return { ...claimed, options: next };
}
