/**
 * Content capture: turns conversation messages into the GenAI message attributes, within a byte
 * budget. Only a span whose provider has capture on ever calls into this file.
 *
 * The message shapes are plain JSON-like values, so any caller can map its own types onto them.
 */

/** Replaces a payload that never leaves the process, so its absence does not read as a gap. */
export const OMITTED = '[omitted]';

/** One part of a message, in the GenAI conventions' part vocabulary plus two fisk-only kinds. */
export type CapturedPart =
  | { readonly type: 'text'; readonly content: string }
  /** Model reasoning; a signature, when present, is never exported. */
  | { readonly type: 'reasoning'; readonly content: string; readonly signature?: string | undefined }
  | { readonly type: 'tool_call'; readonly id: string; readonly name: string; readonly arguments: unknown }
  | { readonly type: 'tool_call_response'; readonly id: string; readonly response: unknown }
  /** A provider's raw block: never exported, only marked as omitted. */
  | { readonly type: 'provider_raw'; readonly provider?: string | undefined; readonly raw: unknown };

export const CAPTURED_ROLES = ['system', 'user', 'assistant', 'tool'] as const;
export type CapturedRole = (typeof CAPTURED_ROLES)[number];

export interface CapturedMessage {
  readonly role: CapturedRole;
  readonly parts: readonly CapturedPart[];
  readonly finishReason?: string | undefined;
}

type ExportedPart =
  | { type: 'text'; content: string }
  | { type: 'reasoning'; content: string; signature?: string }
  | { type: 'tool_call'; id: string; name: string; arguments: unknown }
  | { type: 'tool_call_response'; id: string; response: unknown }
  | { type: 'provider_raw'; provider?: string; content: string };

interface ExportedMessage {
  role: CapturedRole;
  parts: ExportedPart[];
  finish_reason?: string;
}

/** The deepest nesting exported from a tool argument or response; deeper values are cut. */
const MAX_DEPTH = 32;

/** The bytes a value costs once serialised: JSON escaping included, six for a control character. */
export function jsonCost(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? 'null', 'utf8');
}

/** A JSON-safe copy of an untrusted value, walked with a depth bound. */
function bounded(value: unknown, depth = 0): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (depth >= MAX_DEPTH) return OMITTED;
  if (Array.isArray(value)) return value.map((v) => bounded(v, depth + 1));
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = bounded(v, depth + 1);
    return out;
  }
  return null;
}

function exportPart(p: CapturedPart): ExportedPart {
  switch (p.type) {
    case 'text':
      return { type: 'text', content: p.content };
    case 'reasoning':
      return p.signature === undefined
        ? { type: 'reasoning', content: p.content }
        : { type: 'reasoning', content: p.content, signature: OMITTED };
    case 'tool_call':
      return { type: 'tool_call', id: p.id, name: p.name, arguments: bounded(p.arguments) };
    case 'tool_call_response':
      return { type: 'tool_call_response', id: p.id, response: bounded(p.response) };
    case 'provider_raw':
      return p.provider === undefined
        ? { type: 'provider_raw', content: OMITTED }
        : { type: 'provider_raw', provider: p.provider, content: OMITTED };
  }
}

function exportMessage(m: CapturedMessage): ExportedMessage {
  const out: ExportedMessage = { role: m.role, parts: m.parts.map(exportPart) };
  if (m.finishReason !== undefined) out.finish_reason = m.finishReason;
  return out;
}

/** A serialised message list and how many messages the budget made it leave out. */
export interface EncodedMessages {
  readonly json: string;
  readonly dropped: number;
}

/**
 * Encodes messages within `budget` JSON bytes, keeping the newest suffix. Tool responses whose
 * calls were cut away go too (in practice the leading ones of what is kept): orphaned ids would
 * read as output of calls that never happened. A response to a call outside this list (exported
 * by an earlier model call) stays.
 */
export function encodeMessages(messages: readonly CapturedMessage[], budget: number): EncodedMessages {
  // Walk from the newest message back, so a long conversation costs only the suffix that fits.
  const suffix: ExportedMessage[] = [];
  let total = 2; // "[" and "]"
  let start = messages.length;
  while (start > 0) {
    const m = messages[start - 1];
    if (m === undefined) break;
    const exported = exportMessage(m);
    const cost = jsonCost(exported) + (suffix.length > 0 ? 1 : 0);
    if (total + cost > budget) break;
    total += cost;
    suffix.push(exported);
    start--;
  }
  suffix.reverse();
  const droppedCalls = new Set<string>();
  for (const m of messages.slice(0, start)) for (const p of m.parts) if (p.type === 'tool_call') droppedCalls.add(p.id);
  // Responses to calls that were cut away would read as output of calls that never happened.
  const kept: ExportedMessage[] = [];
  let dropped = start;
  for (const m of suffix) {
    const parts = droppedCalls.size === 0 ? m.parts : m.parts.filter((p) => !(p.type === 'tool_call_response' && droppedCalls.has(p.id)));
    if (parts.length === 0) dropped++;
    else kept.push(parts.length === m.parts.length ? m : { ...m, parts });
  }
  return { json: JSON.stringify(kept), dropped };
}

/**
 * Cuts text to at most `budget` JSON-escaped bytes, on a character boundary, marking the cut.
 * Returns the text unchanged when it fits.
 */
export function fitText(text: string, budget: number): string {
  if (jsonCost(text) <= budget) return text;
  const marker = '…[truncated]';
  const room = budget - jsonCost(marker) + 2; // both quoted strings share one pair of quotes
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (jsonCost(text.slice(0, mid)) <= room) lo = mid;
    else hi = mid - 1;
  }
  let cut = lo;
  // Never split a surrogate pair.
  const last = text.charCodeAt(cut - 1);
  if (cut > 0 && last >= 0xd800 && last <= 0xdbff) cut--;
  return text.slice(0, cut) + marker;
}

/**
 * The moving index behind delta export: each model call exports only the messages added since the
 * last one, rather than the whole conversation again. A conversation that shrank (compaction)
 * restarts from the beginning.
 */
export class MessageCursor {
  #next = 0;

  /** The messages not exported yet; advances past them. */
  take<T>(messages: readonly T[]): readonly T[] {
    if (this.#next > messages.length) this.#next = 0;
    const delta = messages.slice(this.#next);
    this.#next = messages.length;
    return delta;
  }
}
