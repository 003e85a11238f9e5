/** The `Run summary:` line printed on stderr at the end of every run. */
import type { RunOutcome } from '../agent/outcome.js';

/** Formats milliseconds as seconds with three decimals (`1.234s`). */
export function formatLatency(ms: number): string {
  return `${(ms / 1000).toFixed(3)}s`;
}

/**
 * `Run summary: [session=<id> ]model=<m> llm_calls=N tool_calls=N[ remote_tool_calls=N]
 * tokens=IN/OUT[ delegated_tokens=IN/OUT][ cached=N][ cache_write=N] latency=1.234s`; delegated
 * tokens are what the agents given tasks reported, never mixed into this run's own. Input counts every input tier, so the
 * figure matches what `llm.budget.max_tokens` counts; the cache tiers are also shown apart.
 */
export function summaryLine(outcome: RunOutcome, options: { readonly verbose: boolean; readonly sessionId?: string }): string {
  const c = outcome.counters;
  const u = c.usage;
  const label = outcome.status === 'suspended' ? 'Run suspended:' : 'Run summary:';
  const parts = [label];
  if (options.sessionId !== undefined) parts.push(`session=${options.sessionId}`);
  if (outcome.model !== '') parts.push(`model=${outcome.model}`);
  parts.push(`llm_calls=${c.llmCalls}`, `tool_calls=${c.toolCalls}`);
  if (c.remoteToolCalls > 0) parts.push(`remote_tool_calls=${c.remoteToolCalls}`);
  parts.push(`tokens=${u.input + u.cacheRead + u.cacheWrite}/${u.output}`);
  const d = c.delegatedUsage;
  if (d.input + d.output > 0) parts.push(`delegated_tokens=${d.input}/${d.output}`);
  if (u.cacheRead > 0) parts.push(`cached=${u.cacheRead}`);
  if (options.verbose && u.cacheWrite > 0) parts.push(`cache_write=${u.cacheWrite}`);
  parts.push(`latency=${formatLatency(outcome.durationMs)}`);
  return parts.join(' ');
}
