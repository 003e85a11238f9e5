/**
 * Caller hooks, run in loop order on the run's own call chain. PreToolUse is the one reliable place
 * to block a tool. A hook returning nothing leaves things as they were.
 */
import type { RunOutcome } from './outcome.js';

/** What UserPromptSubmit decides about the operator's prompt. */
export type PromptDecision =
  { readonly action: 'continue'; readonly prompt?: string } | { readonly action: 'deny'; readonly reason: string };

/** A tool call as a hook sees it. `input` is the raw JSON text of the arguments. */
export interface HookToolCall {
  readonly id: string;
  readonly name: string;
  readonly input: string;
}

/**
 * What PreToolUse decides. A rewrite names the tool and arguments to run instead; a rewrite to a
 * tool that is not registered, or with arguments that are not a JSON object, aborts the run rather
 * than dispatching a malformed call.
 */
export type PreToolDecision =
  | { readonly action: 'allow' }
  | { readonly action: 'deny'; readonly reason: string }
  | { readonly action: 'rewrite'; readonly name: string; readonly input: string };

/** A finished call as PostToolUse sees it: the output the model is about to receive. */
export interface HookToolResult extends HookToolCall {
  readonly output: string;
  readonly isError: boolean;
}

/** What PostToolUse decides: keep the output, or replace it. */
export type PostToolDecision = { readonly action: 'keep' } | { readonly action: 'replace'; readonly output: string };

export type Maybe<T> = T | undefined | void;

/** The four hooks. Every one is optional and may be async. */
export interface Hooks {
  userPromptSubmit?(prompt: string): Maybe<PromptDecision> | Promise<Maybe<PromptDecision>>;
  preToolUse?(call: HookToolCall): Maybe<PreToolDecision> | Promise<Maybe<PreToolDecision>>;
  postToolUse?(result: HookToolResult): Maybe<PostToolDecision> | Promise<Maybe<PostToolDecision>>;
  /** Fires exactly once per run, whatever the outcome, crash included. */
  runEnd?(outcome: RunOutcome): void | Promise<void>;
}
