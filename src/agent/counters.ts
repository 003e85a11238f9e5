/**
 * Run counters, derived from the journal entries rather than kept beside them, so they cannot
 * drift from what happened.
 */
import { addUsage, ZERO_USAGE } from '../llm/types.js';
import type { Usage } from '../llm/types.js';
import { KINDS } from '../toolkit/tool.js';
import type { Kind } from '../toolkit/tool.js';
import type { JournalEntry } from './journal.js';

/** What a run did, counted. */
export interface RunCounters {
  readonly llmCalls: number;
  /** Every tool call answered or deferred, unknown names included. */
  readonly toolCalls: number;
  readonly toolCallsByKind: Readonly<Record<Kind, number>>;
  /** Calls to other agents' tools (kind `remote`). */
  readonly remoteToolCalls: number;
  readonly usage: Usage;
  /** Tokens the agents this run delegated tasks to reported spending, counted apart from its own. */
  readonly delegatedUsage: { readonly input: number; readonly output: number };
}

/** A count of zero for every tool kind. */
export function zeroByKind(): Record<Kind, number> {
  return Object.fromEntries(KINDS.map((k) => [k, 0])) as Record<Kind, number>;
}

/** The counters of a run that did nothing. */
export const NO_COUNTERS: RunCounters = {
  llmCalls: 0,
  toolCalls: 0,
  toolCallsByKind: zeroByKind(),
  remoteToolCalls: 0,
  usage: ZERO_USAGE,
  delegatedUsage: { input: 0, output: 0 },
};

/** Folds journal entries into counters. */
export function deriveCounters(entries: readonly JournalEntry[]): RunCounters {
  const byKind = zeroByKind();
  let llmCalls = 0;
  let toolCalls = 0;
  let usage = ZERO_USAGE;
  const delegated = { input: 0, output: 0 };
  for (const entry of entries) {
    switch (entry.type) {
      case 'assistant':
        llmCalls++;
        usage = addUsage(usage, entry.usage);
        break;
      case 'tool_result':
        toolCalls++;
        byKind[entry.kind]++;
        delegated.input += entry.delegated?.input ?? 0;
        delegated.output += entry.delegated?.output ?? 0;
        break;
      case 'tool_deferred':
        toolCalls++;
        byKind[entry.kind]++;
        break;
      case 'grant':
      case 'terminal':
        break;
      default: {
        const never: never = entry;
        throw new TypeError(`unhandled journal entry ${JSON.stringify(never)}`);
      }
    }
  }
  return { llmCalls, toolCalls, toolCallsByKind: byKind, remoteToolCalls: byKind.remote, usage, delegatedUsage: delegated };
}

/** Tokens processed across all four tiers: what `llm.budget.max_tokens` counts. */
export function tokensProcessed(usage: Usage): number {
  return usage.input + usage.output + usage.cacheRead + usage.cacheWrite;
}
