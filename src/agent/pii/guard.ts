/**
 * The PII guard: wraps UserPromptSubmit and PostToolUse so every path into the loop is scanned.
 * It composes with the caller's hooks rather than replacing them: the caller's hook runs first and
 * the scan reads whatever it left behind, rewrite included.
 */
import type { PiiMode } from '../../config/types.js';
import type { Hooks, PostToolDecision, PromptDecision } from '../hooks.js';
import type { PiiKind } from './detectors.js';
import { defaultScanner } from './scanner.js';
import type { PiiScanner, Redaction } from './scanner.js';

/** The output a tool call is answered with under `reject` when its output held PII. */
export const PII_WITHHELD =
  'The tool output was withheld because it contained personal or secret data (harness.pii.mode is reject). Do not retry to obtain it.';

/** Why a prompt is refused under `reject`. */
export const PII_PROMPT_REJECTED =
  'the prompt contains personal or secret data and harness.pii.mode is reject; remove it, or set harness.pii.mode to redact';

/** Receives the one operator warning a run raises, and the cause of any failed scan. */
export type PiiNotice = (text: string) => void;

/**
 * Wraps caller hooks with the guard for `mode`. Under `off` the hooks are returned unchanged. The
 * scanner is built here, so a mode other than off whose scanner will not build throws, and the
 * run fails rather than sending unscanned text to the model.
 */
export function withPiiGuard(hooks: Hooks, mode: PiiMode, notice: PiiNotice, scanner?: PiiScanner): Hooks {
  switch (mode) {
    case 'off':
      return hooks;
    case 'redact':
    case 'reject':
      break;
    default: {
      const never: never = mode;
      throw new TypeError(`unknown PII mode ${String(never)}`);
    }
  }
  const scan = scanner ?? defaultScanner();
  let warned = false;
  const warnOnce = (where: string, kinds: readonly PiiKind[]): void => {
    if (warned) return;
    warned = true;
    const what = mode === 'redact' ? 'redacted' : 'withheld';
    notice(
      `PII (${kinds.join(', ')}) found in ${where} and ${what} before it reached the model; later hits in this run are handled the same way without another warning`,
    );
  };

  // A scan that throws is treated as a hit: carrying on would send text nobody checked.
  const check = (text: string): Redaction | 'failed' => {
    try {
      return scan.redact(text);
    } catch (err) {
      notice(`PII scan failed (${err instanceof Error ? err.message : String(err)}); the text was withheld from the model`);
      return 'failed';
    }
  };

  return {
    ...hooks,
    async userPromptSubmit(prompt: string): Promise<PromptDecision> {
      const decided = hooks.userPromptSubmit === undefined ? undefined : await hooks.userPromptSubmit(prompt);
      if (decided?.action === 'deny') return decided;
      const text = decided?.action === 'continue' && decided.prompt !== undefined ? decided.prompt : prompt;
      const r = check(text);
      if (r === 'failed') return { action: 'deny', reason: 'the prompt could not be scanned for personal data; it was not sent' };
      if (r.kinds.length === 0) return { action: 'continue', prompt: text };
      warnOnce('the prompt', r.kinds);
      if (mode === 'reject') return { action: 'deny', reason: PII_PROMPT_REJECTED };
      return { action: 'continue', prompt: r.text };
    },
    async postToolUse(result): Promise<PostToolDecision> {
      const decided = hooks.postToolUse === undefined ? undefined : await hooks.postToolUse(result);
      const text = decided?.action === 'replace' ? decided.output : result.output;
      const r = check(text);
      if (r === 'failed') return { action: 'replace', output: PII_WITHHELD };
      if (r.kinds.length === 0) return decided?.action === 'replace' ? decided : { action: 'keep' };
      warnOnce(`the output of ${result.name}`, r.kinds);
      return { action: 'replace', output: mode === 'reject' ? PII_WITHHELD : r.text };
    },
  };
}
