import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from '@anthropic-ai/sdk';
import { codeForStatus, LlmError } from '../errors.js';
import type { Request } from '../provider.js';
import { badRequestHint, statusHint, unreachableMessage } from '../remedy.js';
import type { ProviderAccount } from '../remedy.js';

/**
 * Maps an Anthropic SDK failure onto `LlmError`. A 400 on a call that sent thinking or a reasoning
 * effort gains a hint naming the config key: for thinking the remedy is removing the `llm.thinking`
 * block, since `enabled: false` is still a parameter and is rejected the same way. A 401, 403 or
 * 404 gains a hint naming the key's variable or the model and how to list the served ones.
 */
export function toLlmError(err: unknown, request: Request, account: ProviderAccount): LlmError {
  if (err instanceof LlmError) return err;
  if (err instanceof APIUserAbortError) return new LlmError('aborted', 'the model call was cancelled', { cause: err });
  if (err instanceof APIConnectionTimeoutError) return new LlmError('timeout', 'the connection to the model timed out', { cause: err });
  if (err instanceof APIConnectionError) return new LlmError('network', unreachableMessage(err, account), { cause: err });
  if (err instanceof APIError && typeof err.status === 'number') {
    const code = codeForStatus(err.status);
    const detail = err.apiMessage ?? err.message;
    const hint =
      err.status === 400
        ? badRequestHint(request, { thinking: request.thinking !== 'unset', reasoningEffort: request.reasoningEffort !== undefined })
        : statusHint(err.status, request.model, account);
    const requestId = typeof err.requestID === 'string' ? err.requestID : undefined;
    return new LlmError(code, `Anthropic answered HTTP ${err.status}: ${detail}`, {
      cause: err,
      status: err.status,
      ...(requestId === undefined ? {} : { requestId }),
      ...(hint === undefined ? {} : { hint }),
    });
  }
  return new LlmError('network', err instanceof Error ? err.message : String(err), { cause: err });
}
