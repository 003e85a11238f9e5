import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { codeForStatus, LlmError } from '../errors.js';
import type { Request } from '../provider.js';
import { badRequestHint, statusHint, unreachableMessage } from '../remedy.js';
import type { ProviderAccount, SentFeatures } from '../remedy.js';

/**
 * Maps an OpenAI SDK failure onto `LlmError`, adding the remedy to a 400 on a call that sent an
 * optional feature, and to a 401, 403 or 404 (the key's variable; the model and how to list models).
 */
export function toLlmError(err: unknown, request: Request, sent: SentFeatures, vendor: string, account: ProviderAccount): LlmError {
  if (err instanceof LlmError) return err;
  if (err instanceof APIUserAbortError) return new LlmError('aborted', 'the model call was cancelled', { cause: err });
  if (err instanceof APIConnectionTimeoutError) return new LlmError('timeout', 'the connection to the model timed out', { cause: err });
  if (err instanceof APIConnectionError) return new LlmError('network', unreachableMessage(err, account), { cause: err });
  if (err instanceof APIError && typeof err.status === 'number') {
    const hint = err.status === 400 ? badRequestHint(request, sent) : statusHint(err.status, request.model, account);
    const requestId = typeof err.requestID === 'string' ? err.requestID : undefined;
    return new LlmError(codeForStatus(err.status), `${vendor} answered HTTP ${err.status}: ${apiMessage(err.error, err.message)}`, {
      cause: err,
      status: err.status,
      ...(requestId === undefined ? {} : { requestId }),
      ...(hint === undefined ? {} : { hint }),
    });
  }
  return new LlmError('network', err instanceof Error ? err.message : String(err), { cause: err });
}

function apiMessage(body: unknown, fallback: string): string {
  if (typeof body === 'object' && body !== null && 'message' in body && typeof body.message === 'string') return body.message;
  return fallback;
}
