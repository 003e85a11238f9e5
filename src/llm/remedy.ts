import type { Request } from './provider.js';

/** Which optional model features a call actually sent. */
export interface SentFeatures {
  readonly thinking: boolean;
  readonly reasoningEffort: boolean;
}

/**
 * The remedy for an HTTP 400 on a call that sent an optional model feature, or undefined when it
 * sent none. For thinking the remedy is removing the `llm.thinking` block, since `enabled: false`
 * is still a parameter and a model without thinking rejects it the same way.
 */
export function badRequestHint(request: Request, sent: SentFeatures): string | undefined {
  const hints: string[] = [];
  if (sent.thinking) {
    hints.push(`model "${request.model}" may not support the thinking parameter: remove the llm.thinking block from agent.yaml (enabled: false still sends it)`);
  }
  if (sent.reasoningEffort) {
    hints.push(`model "${request.model}" may not support reasoning effort "${request.reasoningEffort ?? ''}": remove llm.reasoning_effort or pick a level the model accepts`);
  }
  return hints.length === 0 ? undefined : hints.join('; ');
}
