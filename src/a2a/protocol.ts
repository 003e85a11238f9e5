/**
 * Protocol ids, subjects and the identity rule of the agent-to-agent protocol. The ten reference
 * ids and both subjects are shared with every other implementation of the protocol; the ids under
 * `EXTENDED_PROTOCOLS` are this project's own additions for flows the reference leaves undefined.
 */
import { randomBytes } from 'node:crypto';
import { A2aError } from './errors.js';

export const PROTOCOL_NAMESPACE = 'io.choria.fisk-ai.v1';

/** The messages every implementation shares. None of them may ever gain a field. */
export const REFERENCE_PROTOCOLS = [
  'io.choria.fisk-ai.v1.request',
  'io.choria.fisk-ai.v1.event',
  'io.choria.fisk-ai.v1.result',
  'io.choria.fisk-ai.v1.error',
  'io.choria.fisk-ai.v1.cancel',
  'io.choria.fisk-ai.v1.ack',
  'io.choria.fisk-ai.v1.tool.request',
  'io.choria.fisk-ai.v1.tool.reply',
  'io.choria.fisk-ai.v1.discovery.request',
  'io.choria.fisk-ai.v1.discovery.reply',
] as const;

/**
 * The hosted-run messages: a host's own run driven as an a2a client (`fisk run` over the
 * in-process transport). They carry the host's values as they are (events, the start details, the
 * outcome), so they are served only on a transport that never leaves the process.
 */
export const HOSTED_RUN_PROTOCOLS = [
  'io.choria.fisk-ai.v1.run.start',
  'io.choria.fisk-ai.v1.run.started',
  'io.choria.fisk-ai.v1.run.event',
  'io.choria.fisk-ai.v1.run.ask',
  'io.choria.fisk-ai.v1.run.abort',
  'io.choria.fisk-ai.v1.run.outcome',
] as const;

/** Delegation flows the reference does not define, each with its own id and schema. */
export const EXTENDED_PROTOCOLS = [
  'io.choria.fisk-ai.v1.followup',
  'io.choria.fisk-ai.v1.question',
  'io.choria.fisk-ai.v1.answer',
  'io.choria.fisk-ai.v1.keepalive',
  'io.choria.fisk-ai.v1.warning',
  'io.choria.fisk-ai.v1.text',
  ...HOSTED_RUN_PROTOCOLS,
] as const;

export const PROTOCOLS = [...REFERENCE_PROTOCOLS, ...EXTENDED_PROTOCOLS] as const;
export type ProtocolId = (typeof PROTOCOLS)[number];

const KNOWN = new Set<string>(PROTOCOLS);
export function isProtocolId(value: string): value is ProtocolId {
  return KNOWN.has(value);
}

/** The schema file name of a protocol id: `tool.request.json` for `io.choria.fisk-ai.v1.tool.request`. */
export function schemaFileOf(protocol: ProtocolId): string {
  return `${protocol.slice(PROTOCOL_NAMESPACE.length + 1)}.json`;
}

/** Bodies over this size are refused before any decode, on both sides (under the NATS 1 MiB default). */
export const MAX_MESSAGE_BYTES = 768 * 1024;

/** An agent identity: it keys NATS subjects and queue groups, so nothing else is allowed. */
export const IDENTITY_PATTERN = /^[a-zA-Z0-9_-]+$/;
export const IDENTITY_PATTERN_SOURCE = '^[a-zA-Z0-9_-]+$';

/**
 * A delegation request id becomes a subject token of the cancel and elicit subjects, so its
 * characters and length are bounded: a caller choosing those bytes freely would shape a subscription.
 */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
export const REQUEST_ID_PATTERN_SOURCE = '^[A-Za-z0-9_-]{1,64}$';

/** Refuses an identity that could not key a subject; `what` names it in the message. */
export function checkIdentity(name: string, what = 'identity'): string {
  if (!IDENTITY_PATTERN.test(name)) {
    throw new A2aError(
      'identity',
      `${what} ${JSON.stringify(name)} is invalid: it must contain only letters, digits, '-' or '_' (it keys the NATS subjects)`,
    );
  }
  return name;
}

/** Refuses a request id that could not be a subject token. */
export function checkRequestId(id: string): string {
  if (!REQUEST_ID_PATTERN.test(id)) {
    throw new A2aError(
      'identity',
      `request id ${JSON.stringify(id.slice(0, 80))} is invalid: it must be 1 to 64 letters, digits, '-' or '_' (it keys the cancel and elicit subjects)`,
    );
  }
  return id;
}

export const SUBJECT_PREFIX = 'choria.fisk-ai';

/** The five subject families, each a permission boundary an account can grant on its own. */
export const subjects = {
  /** discovery.request -> discovery.reply */
  discovery: (identity: string): string => `${SUBJECT_PREFIX}.discovery.${checkIdentity(identity)}`,
  /** tool.request -> tool.reply */
  tool: (identity: string): string => `${SUBJECT_PREFIX}.tool.${checkIdentity(identity)}`,
  /** request or followup -> ack; the rest of the reply set goes to the same inbox. */
  prompt: (identity: string): string => `${SUBJECT_PREFIX}.prompt.${checkIdentity(identity)}`,
  /** cancel, published by the caller for one running request. */
  cancel: (identity: string, request: string): string => `${SUBJECT_PREFIX}.cancel.${checkIdentity(identity)}.${checkRequestId(request)}`,
  /** answer and keepalive, published by the caller for one running request. */
  elicit: (identity: string, request: string): string => `${SUBJECT_PREFIX}.elicit.${checkIdentity(identity)}.${checkRequestId(request)}`,
  /** The micro framework's service description: endpoints and their metadata (`$SRV.INFO.<name>`). */
  info: (identity: string): string => `$SRV.INFO.${checkIdentity(identity)}`,
} as const;

/**
 * The tool endpoint's metadata key advertising the serving side's per-call limit in ms. It rides
 * in the micro service description rather than in the agent card, because the card is a reference
 * message that never gains a field; a peer that does not advertise it is called with the caller's
 * own timeout.
 */
export const TOOL_TIMEOUT_METADATA = 'fisk_tool_timeout_ms';

/** The version the micro service registers: transport metadata only; the agent card carries the real one. */
export const SERVICE_VERSION = '0.0.0';
export const SERVICE_DESCRIPTION = 'fisk-ai a2a tool server';
/** The request timeout when neither the caller nor the transport configuration gives one. */
export const DEFAULT_TIMEOUT_MS = 30_000;
/** Served tool calls in flight at once, and the per-call limit, when the configuration sets none. */
export const DEFAULT_SLOTS = 2;
/** Served calls that may wait for a busy slot before further ones are refused (503). */
export const DEFAULT_MAX_WAITING = 64;
export const DEFAULT_TOOL_TIMEOUT_MS = 30_000;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KSUID_EPOCH_SECONDS = 1_400_000_000;

const ENTROPY_POOL = 4096;
let pool = Buffer.alloc(0);
let poolAt = ENTROPY_POOL;
/** 62^3: three base62 digits per pass of long division, and the remainder times 2^32 stays exact. */
const CHUNK = 62 * 62 * 62;

/** The next 32 random bits from a pooled buffer: one system call per 1024 words, not one per id. */
function randomWord(): number {
  if (poolAt + 4 > pool.length) {
    pool = randomBytes(ENTROPY_POOL);
    poolAt = 0;
  }
  const w = pool.readUInt32BE(poolAt);
  poolAt += 4;
  return w;
}

/**
 * A new message id in the KSUID layout (27 base62 characters, time-ordered), as the reference
 * mints: 32 bits of seconds since the KSUID epoch, then 128 random bits. The base conversion is
 * long division over five 32-bit words, three digits per pass, which is what a hot path can afford.
 */
export function mintId(now: Date = new Date()): string {
  // the five words as locals, most significant first: no array to allocate or index per pass
  let w0 = Math.max(0, Math.floor(now.getTime() / 1000) - KSUID_EPOCH_SECONDS) >>> 0;
  let w1 = randomWord();
  let w2 = randomWord();
  let w3 = randomWord();
  let w4 = randomWord();
  let out = '';
  for (let n = 0; n < 9; n++) {
    let acc = w0;
    w0 = Math.floor(acc / CHUNK);
    acc = (acc - w0 * CHUNK) * 4294967296 + w1;
    w1 = Math.floor(acc / CHUNK);
    acc = (acc - w1 * CHUNK) * 4294967296 + w2;
    w2 = Math.floor(acc / CHUNK);
    acc = (acc - w2 * CHUNK) * 4294967296 + w3;
    w3 = Math.floor(acc / CHUNK);
    acc = (acc - w3 * CHUNK) * 4294967296 + w4;
    w4 = Math.floor(acc / CHUNK);
    const remainder = acc - w4 * CHUNK;
    const lo = remainder % 62;
    const rest = (remainder - lo) / 62;
    const mid = rest % 62;
    out = (BASE62[(rest - mid) / 62] as string) + (BASE62[mid] as string) + (BASE62[lo] as string) + out;
  }
  return out;
}

let isoSecond = -1;
let isoPrefix = '';

/**
 * `now.toISOString()`, with the part up to the seconds formatted once per second: every message
 * carries a timestamp, and most of them fall in a second that has already been formatted.
 */
export function isoTime(now: Date): string {
  const ms = now.getTime();
  const second = Math.floor(ms / 1000);
  if (second !== isoSecond) {
    const full = now.toISOString();
    // years outside 0000-9999 are written with a sign and six digits; they are not cached
    if (full.length !== 24) return full;
    isoSecond = second;
    isoPrefix = full.slice(0, 20);
  }
  const frac = ms - second * 1000;
  return `${isoPrefix}${frac < 10 ? '00' : frac < 100 ? '0' : ''}${frac}Z`;
}

/**
 * The transport header a delegated request carries the chain of agents it came through in, outermost
 * first, comma separated. A transport header, not a body field: the shared message bodies never gain one.
 */
export const HOPS_HEADER = 'Fisk-Hops';

/** The most agents a delegated task may pass through, the serving one included. */
export const MAX_DELEGATION_DEPTH = 4;

/**
 * The chain a hops header holds: its identities, in order. Anything that is not an identity is
 * dropped, and at most one more entry than the depth limit is kept, so a hostile header stays small.
 */
export function parseHops(value: string | undefined): string[] {
  if (value === undefined || value.trim() === '') return [];
  return value
    .split(',')
    .map((h) => h.trim())
    .filter((h) => IDENTITY_PATTERN.test(h))
    .slice(0, MAX_DELEGATION_DEPTH + 1);
}

/**
 * Why a request that came through `hops` is refused by `self`, or undefined when it may run: an agent
 * already in the chain would go round in a circle, and a chain at the limit may not grow.
 */
export function hopsRefusal(self: string, hops: readonly string[]): string | undefined {
  if (hops.includes(self))
    return `the request came through ${hops.join(' → ')}, which already holds ${self}: running it would go round in a circle`;
  if (hops.length >= MAX_DELEGATION_DEPTH)
    return `the request came through ${hops.length} agents (${hops.join(' → ')}), the most a delegation chain may hold (${MAX_DELEGATION_DEPTH})`;
  return undefined;
}
