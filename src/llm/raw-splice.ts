import { randomBytes } from 'node:crypto';
import { LlmError } from './errors.js';

/**
 * Puts stored raw JSON (a tool call's input, an opaque provider block) into a request body without
 * parsing it into JavaScript values first, which would round large integers and reformat numbers.
 * While the body is assembled each raw value stands in as a marker string; `serialize` then
 * stringifies the body once and splices the raw texts in place of the markers.
 *
 * The markers carry a per-body nonce (a random key drawn once per process, and the body's number)
 * and a NUL character, so no text from the model or a tool can forge one: the key never leaves the
 * process. Every raw value is checked to be JSON before it is accepted, so the body
 * sent is always valid JSON.
 */
// drawn once: a random draw for every body cost more than the rest of making its slots
const KEY = randomBytes(8).toString('hex');
let bodies = 0;

export class RawSlots {
  readonly #nonce = `${KEY}${(bodies++).toString(36)}`;
  readonly #raws: string[] = [];

  /** The marker for one raw JSON value. Throws `LlmError('bad_request')` naming `what` when it is not JSON. */
  slot(raw: string, what: string): string {
    try {
      JSON.parse(raw);
    } catch (err) {
      throw new LlmError('bad_request', `the stored ${what} is not valid JSON`, { cause: err });
    }
    this.#raws.push(raw);
    return `\u0000fisk-raw:${this.#nonce}:${this.#raws.length - 1}`;
  }

  /** The JSON text of `value` with every marker replaced by its raw value. */
  serialize(value: unknown): string {
    const text = JSON.stringify(value);
    if (this.#raws.length === 0) return text;
    // A plain scan rather than a regular expression: this runs on every model call over the whole
    // conversation, and indexOf over a flat string is several times cheaper.
    const prefix = `"\\u0000fisk-raw:${this.#nonce}:`;
    const parts: string[] = [];
    let pos = 0;
    for (;;) {
      const at = text.indexOf(prefix, pos);
      if (at < 0) break;
      const digits = at + prefix.length;
      const close = text.indexOf('"', digits);
      const raw = this.#raws[Number(text.slice(digits, close))];
      if (close < 0 || raw === undefined) break;
      parts.push(text.slice(pos, at), raw);
      pos = close + 1;
    }
    if (parts.length === 0) return text;
    parts.push(text.slice(pos));
    return parts.join('');
  }
}
