/**
 * Thinking signatures and encrypted reasoning arrive as strings and are kept as opaque bytes in the
 * neutral model. The bytes are the string's UTF-8 encoding, never a base64 decoding of it, so a
 * value that is not valid base64 still round-trips exactly.
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: false });

/** The opaque bytes kept for a provider's signature string. */
export function signatureBytes(text: string): Uint8Array {
  return encoder.encode(text);
}

/** The provider's signature string back from the kept bytes. */
export function signatureText(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}
