/**
 * The name a model is given for a server's tool. A server may name its tools anything MCP allows
 * (`read.file`, `say hi`, a long name), but the model APIs accept only letters, digits, `_` and
 * `-`, at most 64 characters, and one refused name fails every request of the run. So a tool is
 * named `<prefix>_<tool>` when its entry sets `prefix`, and a name the APIs would refuse is
 * rewritten: every other character becomes `_`, and a name still too long (or one another tool of
 * the same server already has) is cut and ends in a short hash of the name it replaces. The same
 * listing always gives the same names; calls still go to the server under its own name.
 */
import { createHash } from 'node:crypto';
import { isValidToolName } from '../../toolkit/names.js';

/** The longest tool name the model APIs accept. */
export const MAX_MODEL_NAME = 64;
/** How many hex digits of the hash end a shortened or disambiguated name. */
const HASH_DIGITS = 8;

/** `<prefix>_<tool>`, or the tool's own name without a prefix. */
export function prefixedName(prefix: string | undefined, name: string): string {
  return prefix === undefined ? name : `${prefix}_${name}`;
}

function hashOf(name: string): string {
  return createHash('sha256').update(name, 'utf8').digest('hex').slice(0, HASH_DIGITS);
}

/** `wanted` with every character a model API refuses replaced by `_`, kept whole when it fits. */
export function modelSafeName(wanted: string): string {
  if (isValidToolName(wanted)) return wanted;
  const cleaned = wanted.replace(/[^A-Za-z0-9_-]/g, '_');
  return cleaned.length <= MAX_MODEL_NAME && cleaned !== '' ? cleaned : hashedName(wanted);
}

/** `wanted` cut to fit with a hash of the whole of it at the end: distinct for distinct names. */
export function hashedName(wanted: string): string {
  const cleaned = wanted.replace(/[^A-Za-z0-9_-]/g, '_');
  return `${cleaned.slice(0, MAX_MODEL_NAME - HASH_DIGITS - 1)}_${hashOf(wanted)}`;
}
