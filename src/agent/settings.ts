/** The few configuration values the loop reads, taken once from the prepared configuration. */
import type { Config, PiiMode } from '../config/types.js';
import type { ThinkingMode } from '../llm/types.js';

export interface RunSettings {
  readonly model: string;
  readonly systemPrompt: string;
  readonly maxOutputTokens: number;
  readonly thinking: ThinkingMode;
  readonly reasoningEffort: string | undefined;
  readonly noPromptCache: boolean;
  /** Cumulative tokens over all four tiers (`llm.budget.max_tokens`). */
  readonly maxTokens: number;
  readonly maxIterations: number;
  /** `undefined` when the operator asked for no tool timeout. */
  readonly toolTimeoutMs: number | undefined;
  readonly confirmTags: readonly string[];
  readonly humanInTheLoop: boolean;
  readonly piiMode: PiiMode;
}

export function settingsFromConfig(config: Config): RunSettings {
  const b = config.llm.budget;
  return {
    model: config.llm.model,
    systemPrompt: config.systemPrompt,
    maxOutputTokens: b.maxOutputTokens,
    thinking: config.llm.thinking,
    reasoningEffort: config.llm.reasoningEffort,
    noPromptCache: config.llm.noPromptCache,
    maxTokens: b.maxTokens,
    maxIterations: b.maxIterations,
    toolTimeoutMs: b.toolTimeout?.ms,
    confirmTags: config.harness.confirmTags,
    humanInTheLoop: config.harness.humanInTheLoop,
    piiMode: config.harness.pii.mode,
  };
}
