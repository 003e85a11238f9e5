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
    hints.push(
      `model "${request.model}" may not support the thinking parameter: remove the llm.thinking block from agent.yaml (enabled: false still sends it)`,
    );
  }
  if (sent.reasoningEffort) {
    hints.push(
      `model "${request.model}" may not support reasoning effort "${request.reasoningEffort ?? ''}": remove llm.reasoning_effort or pick a level the model accepts`,
    );
  }
  return hints.length === 0 ? undefined : hints.join('; ');
}

/** Where a provider's key lives and how its models are listed, for the remedy on a 401 or 404. */
export interface ProviderAccount {
  /** The variable holding the key, e.g. `ANTHROPIC_API_KEY`. */
  readonly keyVar: string;
  /** The base URL the client called, without a trailing slash. */
  readonly baseUrl: string;
  /** The variable that can hold the base URL, e.g. `ANTHROPIC_BASE_URL`. */
  readonly urlVar: string;
  /** The API family, which decides how models are listed. */
  readonly api: 'anthropic' | 'openai';
}

/** A command that lists the models an endpoint serves, with the key taken from its variable. */
export function listModelsCommand(account: ProviderAccount): string {
  const base = account.baseUrl.replace(/\/+$/, '');
  switch (account.api) {
    case 'anthropic':
      return `curl -s ${base}/v1/models -H "x-api-key: $${account.keyVar}" -H "anthropic-version: 2023-06-01"`;
    case 'openai':
      return `curl -s ${base}/models -H "Authorization: Bearer $${account.keyVar}"`;
    default: {
      const never: never = account.api;
      return never;
    }
  }
}

/**
 * What a call that reached no server says: the endpoint it tried, why (`connect ECONNREFUSED
 * 127.0.0.1:11434`, the innermost cause a fetch failure carries) and where that endpoint is set.
 */
export function unreachableMessage(err: Error, account: ProviderAccount): string {
  const causes: string[] = [];
  for (let c: unknown = err.cause; c instanceof Error && causes.length < 3; c = c.cause) causes.push(c.message);
  const why = causes.length === 0 ? err.message : causes.join(': ');
  return `cannot reach the model service at ${account.baseUrl} (${why}); check that it is up and that the address is right (--base-url, ${account.urlVar} or llm.base_url)`;
}

/**
 * The remedy for an HTTP status that the operator fixes outside the request: a 401 or 403 names the
 * variable holding the key, a 404 names the model and how to list the ones the endpoint serves.
 * Undefined for any other status.
 */
export function statusHint(status: number, model: string, account: ProviderAccount): string | undefined {
  if (status === 401) {
    return `the key was refused: check the key in ${account.keyVar} (or llm.base_url, if it points at the wrong server)`;
  }
  if (status === 403) {
    return `the key in ${account.keyVar} lacks permission for model "${model}": use a key with access, or change llm.model`;
  }
  if (status === 404) {
    return `model "${model}" was not found at ${account.baseUrl}: set llm.model to a model this endpoint serves; list them with: ${listModelsCommand(account)}`;
  }
  return undefined;
}
