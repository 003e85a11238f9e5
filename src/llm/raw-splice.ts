import { randomBytes } from 'node:crypto';
import { LlmError } from './errors.js';

/**
 * Puts stored raw JSON (a tool call's input, an opaque provider block) into a request body without
 * parsing it into JavaScript values first, which would round large integers and reformat numbers.
 * While the body is assembled each raw value stands in as a marker string; `serialize` then
 * stringifies the body once and splices the raw texts in place of the markers.
 *
 * The markers carry a random per-body nonce and a NUL character, so no text from the model or a
 * tool can forge one. Every raw value is checked to be JSON before it is accepted, so the body
 * sent is always valid JSON.
 */
export class RawSlots {
  readonly #nonce = randomBytes(8).toString('hex');
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
    const pattern = new RegExp(`"\\\\u0000fisk-raw:${this.#nonce}:(\\d+)"`, 'g');
    return text.replace(pattern, (_m, i: string) => this.#raws[Number(i)] ?? 'null');
  }
}
