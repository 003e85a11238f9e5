/**
 * The fingerprint: the configuration a stored conversation was written under, and the gate that
 * decides whether it may continue. Each field has a class:
 *
 * - `hard`: the provider. A conversation cannot move between providers (thinking signatures and
 *   provider blocks are only valid where they were made), so not even `--force` overrides it.
 * - `blocking`: model, system prompt, thinking mode. Refused unless forced.
 * - `tools`: the tool set. Refused unless forced; when forced, restored grants are dropped,
 *   because an approval was given for a tool set that no longer exists.
 * - `budget`: token and iteration limits. Refused unless forced; forced, the new limits apply.
 *
 * The sandbox is of the `tools` class, but only a weaker one counts as a change: a resume under a
 * stronger sandbox goes on as if nothing changed.
 */
import { createHash } from 'node:crypto';
import type { SystemBlock, ThinkingMode, ToolDef } from '../llm/types.js';
import { sortedJson } from '../util/sorted-json.js';
import { RunStateError } from './errors.js';
import type { Fingerprint, FingerprintThinking } from './records.js';
import { sandboxStamp, sandboxWeakening } from './sandbox-stamp.js';
import type { SandboxStampInput } from './sandbox-stamp.js';

/** Field classes, from strictest. */
export const FINGERPRINT_CLASSES = ['hard', 'blocking', 'tools', 'budget'] as const;
export type FingerprintClass = (typeof FINGERPRINT_CLASSES)[number];

/** Every fingerprint field with its class and its name in a refusal. */
export const FINGERPRINT_FIELDS = {
  provider: { class: 'hard', label: 'provider' },
  model: { class: 'blocking', label: 'model' },
  system_hash: { class: 'blocking', label: 'system prompt' },
  thinking_mode: { class: 'blocking', label: 'thinking' },
  tools_hash: { class: 'tools', label: 'tool set' },
  max_tokens: { class: 'budget', label: 'max_tokens' },
  max_iterations: { class: 'budget', label: 'max_iterations' },
  sandbox: { class: 'tools', label: 'sandbox' },
} as const satisfies Record<keyof Fingerprint, { class: FingerprintClass; label: string }>;
export type FingerprintField = keyof typeof FINGERPRINT_FIELDS;

/** What a run's configuration is made of, as the runner holds it. */
export interface FingerprintInput {
  readonly provider: string;
  readonly model: string;
  /**
   * The system prompt segments, BEFORE any resume reminder is appended: the reminder is added
   * after the fingerprint is computed so it can never perturb the comparison.
   */
  readonly system: readonly (SystemBlock | string)[];
  readonly tools: readonly ToolDef[];
  readonly thinking: ThinkingMode;
  readonly maxTokens: number;
  readonly maxIterations: number;
  /** Every tool that starts a process, with the sandbox it runs in (`null`: none). */
  readonly sandbox?: SandboxStampInput;
}

/** JSON with sorted keys and Go's HTML escaping, so equal values always hash equal. */
function canonicalJson(value: unknown): string {
  // tool schemas come from applications, peers and MCP servers: written without recursion
  return sortedJson(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Hex SHA-256 of the system prompt segments; the prompt itself is never stored. */
export function systemHash(system: readonly (SystemBlock | string)[]): string {
  return sha256(JSON.stringify(system.map((s) => (typeof s === 'string' ? s : s.text))));
}

// A served agent stamps every run with the same tools; hashing thousands of commands costs tens of
// milliseconds, so the hash of a frozen list, and the canonical text of a frozen definition (the
// same object in the tool set of every run), are kept with them.
const frozenHashes = new WeakMap<readonly ToolDef[], string>();
const frozenTexts = new WeakMap<ToolDef, string>();

function definitionText(t: ToolDef): string {
  const kept = frozenTexts.get(t);
  if (kept !== undefined) return kept;
  const text = `{"Name":${canonicalJson(t.name)},"Description":${canonicalJson(t.description)},"InputSchema":${canonicalJson(t.inputSchema)},"DeferLoading":${t.deferLoading}}`;
  if (Object.isFrozen(t)) frozenTexts.set(t, text);
  return text;
}

/**
 * Hex SHA-256 of the tool definitions as sent, in order, with the original's field names so the
 * hash of one definition list is the same in both implementations' terms. What is frozen (a tool
 * set's definition list, a command's definition) is worked out once.
 */
export function toolsHash(tools: readonly ToolDef[]): string {
  if (!Object.isFrozen(tools)) return hashTools(tools);
  let hash = frozenHashes.get(tools);
  if (hash === undefined) {
    hash = hashTools(tools);
    frozenHashes.set(tools, hash);
  }
  return hash;
}

function hashTools(tools: readonly ToolDef[]): string {
  return sha256(`[${tools.map(definitionText).join(',')}]`);
}

function thinkingOf(mode: ThinkingMode): FingerprintThinking {
  return mode === 'on' ? 'summarized' : 'off';
}

/** Stamps the configuration a run is about to write under. */
export function computeFingerprint(input: FingerprintInput): Fingerprint {
  const sandbox = input.sandbox === undefined ? undefined : sandboxStamp(input.sandbox);
  return {
    ...(sandbox === undefined ? {} : { sandbox }),
    provider: input.provider,
    model: input.model,
    system_hash: systemHash(input.system),
    tools_hash: toolsHash(input.tools),
    thinking_mode: thinkingOf(input.thinking),
    max_tokens: input.maxTokens,
    max_iterations: input.maxIterations,
  };
}

/** One field that differs between the stored and the current fingerprint. */
export interface FingerprintChange {
  readonly field: FingerprintField;
  readonly class: FingerprintClass;
  /** As a refusal prints it: `model: a -> b`, `system prompt: changed`. */
  readonly line: string;
}

function show(v: string | number | undefined): string {
  return v === undefined || v === '' ? '(unset)' : String(v);
}

/** Every field that changed, in a fixed order. Missing fields in an old journal compare as unset. */
export function diffFingerprints(stored: Fingerprint, current: Fingerprint): readonly FingerprintChange[] {
  const out: FingerprintChange[] = [];
  for (const field of Object.keys(FINGERPRINT_FIELDS) as FingerprintField[]) {
    const a = stored[field];
    const b = current[field];
    if (a === b) continue;
    const { class: cls, label } = FINGERPRINT_FIELDS[field];
    if (field === 'sandbox') {
      const weaker = sandboxWeakening(stored.sandbox, current.sandbox);
      if (weaker.length > 0) out.push({ field, class: cls, line: `${label}: weaker (${weaker.join('; ')})` });
      continue;
    }
    const hashed = field === 'system_hash' || field === 'tools_hash';
    out.push({ field, class: cls, line: hashed ? `${label}: changed` : `${label}: ${show(a)} -> ${show(b)}` });
  }
  return out;
}

/** What a resume may do after the gate. */
export interface ResumeDecision {
  readonly changes: readonly FingerprintChange[];
  /** False when the tool set changed and the resume was forced: restored grants must be dropped. */
  readonly grantsSurvive: boolean;
}

/**
 * The resume gate. With no change the resume proceeds. Otherwise it is refused with every changed
 * field named, unless `force` is set and the provider is unchanged. Throws `RunStateError`
 * `fingerprint`.
 */
export function resumeGate(
  stored: Fingerprint,
  current: Fingerprint,
  opts: { readonly force: boolean; readonly runId: string },
): ResumeDecision {
  const changes = diffFingerprints(stored, current);
  if (changes.length === 0) return { changes, grantsSurvive: true };
  const lines = changes.map((c) => `  ${c.line}`).join('\n');
  const hard = changes.filter((c) => c.class === 'hard');
  if (hard.length > 0) {
    throw new RunStateError(
      'fingerprint',
      `cannot resume run ${JSON.stringify(opts.runId)}: it was written with a different provider, which --force cannot override:\n${lines}\nset llm.provider back to ${show(stored.provider)} to resume it`,
    );
  }
  if (!opts.force) {
    throw new RunStateError(
      'fingerprint',
      `cannot resume run ${JSON.stringify(opts.runId)}: the configuration changed since it was written:\n${lines}\nrestore the configuration, or pass --force to resume under the new one`,
    );
  }
  return { changes, grantsSurvive: !changes.some((c) => c.class === 'tools') };
}
