/**
 * The words a call is answered with when the tool did not give the answer itself. One place, so a
 * model reads the same sentence for the same failure whether it called through a run, `fisk mcp`
 * or a peer.
 */
import { formatGoDuration } from '../../config/duration.js';
import { requiredNames } from '../required.js';

/** The answer to a call naming a tool that is not in the set. */
export function unknownToolMessage(name: string): string {
  return `tool ${JSON.stringify(name)} is not available; call only the tools in your tool list`;
}

/** The operator-facing warning for the same. */
export function unknownToolWarning(name: string): string {
  return `the model called ${JSON.stringify(name)}, which is not one of this run's tools; it was told so and nothing ran`;
}

function typeOf(schema: unknown): string {
  if (typeof schema !== 'object' || schema === null) return '';
  const t = (schema as Record<string, unknown>)['type'];
  if (typeof t === 'string') return t;
  if (Array.isArray(t)) return t.filter((x): x is string => typeof x === 'string').join('|');
  return '';
}

/**
 * The parameters a schema takes, required first, each with its type, so a model that got the call
 * wrong can correct it without another round trip: `required: name (string); optional: force (boolean)`.
 */
export function describeParameters(schema: Readonly<Record<string, unknown>>): string {
  const props = schema['properties'];
  const names = typeof props === 'object' && props !== null ? Object.keys(props) : [];
  const required = requiredNames(schema);
  const render = (n: string): string => {
    const t = typeOf((props as Record<string, unknown> | undefined)?.[n]);
    return t === '' ? n : `${n} (${t})`;
  };
  const optional = names.filter((n) => !required.includes(n));
  const parts: string[] = [];
  parts.push(`required: ${required.length === 0 ? 'none' : required.map(render).join(', ')}`);
  parts.push(`optional: ${optional.length === 0 ? 'none' : optional.map(render).join(', ')}`);
  return parts.join('; ');
}

/** The answer to a call whose arguments cannot be run, with the parameters the tool takes. */
export function invalidArgumentsMessage(name: string, problem: string, schema: Readonly<Record<string, unknown>>): string {
  return `invalid arguments for ${name}: ${problem}; the call was not run. ${name} takes ${describeParameters(schema)}`;
}

/** The answer to a call that ran past its deadline. */
export function timeoutMessage(name: string, ms: number, key: string): string {
  return `the tool ${name} did not finish within ${formatGoDuration(ms)} and was stopped (a command is killed with its process group); its output is lost (${key})`;
}

/** The answer to a call whose tool threw. */
export function toolFailedMessage(err: unknown): string {
  return `the tool failed: ${err instanceof Error ? err.message : String(err)}`;
}

/**
 * What a denied call on a serving surface (`fisk mcp`, a2a) ends with, by why it was denied, so the
 * calling model knows whether trying again can help and what can: the same words on every surface.
 * A run's own operator gate says the same in its words (`agent/confirm-gate.ts`).
 */
export const SERVED_DENIAL_ADVICE = {
  /** The person asked said no, or answered without approving. */
  declined: 'calling it again would only ask the same question again, so do not retry it: ask the user what they want instead',
  /** Nobody answered the approval question, or it could not be put. */
  unanswered: 'retrying at once will not help: ask the user whether they are there to approve it, then try again',
  /** This surface refuses every call to the tool from this caller. */
  unapprovable:
    'retrying will not help, because every call to it is refused here: tell the user, who can run it where its approval can be given',
} as const;
export type ServedDenial = keyof typeof SERVED_DENIAL_ADVICE;

/** The reason a denied served call is given: what happened, then the advice for its kind. */
export function servedDenialReason(why: string, kind: ServedDenial): string {
  return `${why}, so the call was not run; ${SERVED_DENIAL_ADVICE[kind]}`;
}

/** A serving surface's answer for a tool that cannot report whether it needs approval. */
export function ungateableMessage(name: string): string {
  return `${name} cannot report whether it needs approval, so it is not run; ${SERVED_DENIAL_ADVICE.unapprovable}`;
}

/** The answer when nobody can carry a deferred answer (a served call has no session to answer later). */
export function deferralNotCarriedMessage(name: string, reason: string): string {
  return `${name} deferred its answer (${reason}), which this surface cannot carry: a served call has no session to answer later`;
}

/**
 * A serving surface's answer for a call it stopped because the server is shutting down. The call
 * did not complete: a command that had started was killed with its process group, so it may have
 * done part of its work; one still waiting for approval or a slot never ran.
 */
export function shuttingDownMessage(name: string): string {
  return `the server is shutting down, so the call to ${name} did not complete (a command that had started was stopped with its process group and may have done part of its work); it can be retried once the server is back`;
}

/**
 * Which refusal a stored answer is, read back from the fixed words above, so a replayed journal
 * shows a refused call as refused, exactly as the live run did. Anything else is a tool's answer.
 */
export function refusalOf(content: string, isError: boolean): 'unknown_tool' | 'invalid_arguments' | 'denied' | 'not_loaded' | undefined {
  if (isError && /^tool ".*" is not available; call only the tools in your tool list$/su.test(content)) return 'unknown_tool';
  if (isError && /^invalid arguments for [A-Za-z0-9_-]+: .*; the call was not run\. /su.test(content)) return 'invalid_arguments';
  if (content.startsWith('{"allowed":false,"reason":')) {
    try {
      const v = JSON.parse(content) as Record<string, unknown>;
      const keys = Object.keys(v).sort().join(',');
      const shaped = keys === 'allowed,reason' || (keys === 'allowed,operator_reason,reason' && typeof v['operator_reason'] === 'string');
      if (shaped && v['allowed'] === false && typeof v['reason'] === 'string') return 'denied';
    } catch {
      // not a denial body
    }
  }
  return undefined;
}
