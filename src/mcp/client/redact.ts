/**
 * What may be printed about a server: its endpoint and its errors, with every resolved secret
 * replaced. A URL keeps its path, because the path is what tells one endpoint from another.
 */
import { redactSecrets, redactUrl } from '../../config/expand.js';

/** Secrets shorter than this are left alone: replacing a two-letter value would garble every message. */
export const MIN_SECRET_LENGTH = 8;

/** Replaces one server's secrets in text meant for a log, an error or a listing. */
export interface Redactor {
  (text: string): string;
}

/**
 * Builds the redactor for one server from the secrets `resolveMcpClient` found and the resolved
 * URL (its userinfo counts as secret too, under the same length rule). Longest first, so a value
 * that contains another is replaced whole. `union`, the runtime's scrubber of every credential it
 * holds, runs first, so another party's credential is replaced too.
 */
export function redactorFor(secrets: readonly string[], url: string | undefined, union?: (text: string) => string): Redactor {
  const all = new Set(secrets.filter((s) => s.length >= MIN_SECRET_LENGTH));
  if (url !== undefined) {
    try {
      const parsed = new URL(url);
      for (const part of [parsed.username, parsed.password, decodeURIComponent(parsed.username), decodeURIComponent(parsed.password)]) {
        if (part.length >= MIN_SECRET_LENGTH) all.add(part);
      }
    } catch {
      // an unparsable URL fails to connect; its secrets are still in the list above
    }
  }
  const ordered = [...all].sort((a, b) => b.length - a.length);
  return union === undefined ? (text: string) => redactSecrets(text, ordered) : (text: string) => redactSecrets(union(text), ordered);
}

/** The endpoint as it may be printed: userinfo dropped, secrets replaced, the path kept. */
export function printableEndpoint(url: string, redact: Redactor): string {
  return redact(redactUrl(url));
}

/** The text of any thrown value, redacted. */
export function errorText(err: unknown, redact: Redactor): string {
  return redact(err instanceof Error ? err.message : String(err));
}
