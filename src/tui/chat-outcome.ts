/**
 * What a chat in the full-screen view did, as one outcome for the exit summary: the last turn's
 * status and answer, with the counters and time of every turn the view ran added together, so
 * follow-ups count as much as the first prompt.
 */
import type { RunCounters } from '../agent/counters.js';
import type { RunOutcome } from '../agent/outcome.js';
import { addUsage } from '../llm/types.js';
import type { Kind } from '../toolkit/tool.js';

function addCounters(a: RunCounters, b: RunCounters): RunCounters {
  const byKind = { ...a.toolCallsByKind } as Record<Kind, number>;
  for (const [k, n] of Object.entries(b.toolCallsByKind) as [Kind, number][]) byKind[k] = (byKind[k] ?? 0) + n;
  return {
    llmCalls: a.llmCalls + b.llmCalls,
    toolCalls: a.toolCalls + b.toolCalls,
    toolCallsByKind: byKind,
    remoteToolCalls: a.remoteToolCalls + b.remoteToolCalls,
    usage: addUsage(a.usage, b.usage),
    delegatedUsage: { input: a.delegatedUsage.input + b.delegatedUsage.input, output: a.delegatedUsage.output + b.delegatedUsage.output },
  };
}

/**
 * The last outcome, counting every turn: `outcomes` oldest first, `last` among them. The duration
 * is the turns' own time added up, never the idle time between them.
 */
export function chatOutcome(last: RunOutcome, outcomes: readonly RunOutcome[]): RunOutcome {
  const others = outcomes.filter((o) => o !== last);
  if (others.length === 0) return last;
  const counters = others.reduce((c, o) => addCounters(c, o.counters), last.counters);
  const durationMs = others.reduce((ms, o) => ms + o.durationMs, last.durationMs);
  return { ...last, counters, durationMs };
}
