/**
 * Request assembly by identity. A conversation only grows: a message, once added, never changes,
 * and a tool set is a snapshot that is replaced rather than edited. So the JSON text a provider
 * sends for one message or one tool list is computed once, remembered against that very object,
 * and a call only encodes what is new. The entries live as long as the objects they describe.
 */
export class EncodedCache<K extends object> {
  readonly #texts = new WeakMap<K, string>();
  readonly #encode: (key: K) => string;

  /** `encode` must depend on the key alone, never on anything else about the call. */
  constructor(encode: (key: K) => string) {
    this.#encode = encode;
  }

  /** The JSON text for `key`, encoded on first sight. */
  get(key: K): string {
    let text = this.#texts.get(key);
    if (text === undefined) {
      text = this.#encode(key);
      this.#texts.set(key, text);
    }
    return text;
  }

  /**
   * The texts of `keys` joined with commas, skipping empty ones (a message that contributes
   * nothing to the wire), ready to sit between a JSON array's brackets.
   */
  join(keys: readonly K[]): string {
    let out = '';
    for (const key of keys) {
      const text = this.get(key);
      if (text === '') continue;
      out = out === '' ? text : `${out},${text}`;
    }
    return out;
  }
}

/** A JSON object's text from its members in order, each value already JSON text; undefined values are left out. */
export function objectText(members: readonly (readonly [string, string | undefined])[]): string {
  let out = '';
  for (const [key, value] of members) {
    if (value === undefined) continue;
    out += `${out === '' ? '{' : ','}${JSON.stringify(key)}:${value}`;
  }
  return out === '' ? '{}' : `${out}}`;
}
