/**
 * Who may talk to the listener at all, decided before a request reaches any session. On a loopback
 * bind a request must name a loopback `Host` and, from a browser, come from a loopback page, so no
 * web page reaches the tools through DNS rebinding. Off loopback a browser request must come from
 * the server's own origin. With a token, every request must also carry it as a bearer credential.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { loopbackRequestRefusal } from '../../util/loopback.js';

/** Why a request is refused: the HTTP status, the message and any header the refusal needs. */
export interface Refusal {
  readonly status: 401 | 403;
  readonly message: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** What the listener admits. */
export interface AdmissionPolicy {
  /** Whether the bind is a loopback address, which turns on the Host guard. */
  readonly loopback: boolean;
  /** The bearer token every request must carry; absent means none is asked for. */
  readonly token?: string;
}

/** The realm named in a 401's challenge. */
const REALM = 'fisk-ai';

function headerValue(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * Compares two secrets in time that depends on neither: both are hashed first, so not even the
 * length of the expected token leaks through the comparison.
 */
function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}

/** The credential of an `Authorization: Bearer <token>` header, or `undefined` for any other. */
function bearerCredential(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const m = /^\s*bearer\s+(\S+)\s*$/iu.exec(header);
  return m?.[1];
}

/** Off loopback, a browser request (one that names its page) must come from this very server. */
function foreignOrigin(host: string | undefined, origin: string | undefined): boolean {
  if (origin === undefined) return false;
  try {
    return new URL(origin).host.toLowerCase() !== (host ?? '').toLowerCase();
  } catch {
    return true;
  }
}

/** Why `req` must be refused under `policy`, or `undefined` when it may be answered. */
export function admissionRefusal(req: IncomingMessage, policy: AdmissionPolicy): Refusal | undefined {
  const host = headerValue(req, 'host');
  const origin = headerValue(req, 'origin');
  if (policy.loopback) {
    const refused = loopbackRequestRefusal(host, origin);
    if (refused !== undefined) return { status: 403, message: refused };
  } else if (foreignOrigin(host, origin)) {
    return { status: 403, message: 'forbidden: requests from another web origin are refused' };
  }
  if (policy.token === undefined) return undefined;
  const header = headerValue(req, 'authorization');
  const given = bearerCredential(header);
  if (given !== undefined && sameSecret(given, policy.token)) return undefined;
  // the header's content is never echoed: it may be a real token meant for somewhere else
  return header === undefined
    ? {
        status: 401,
        message: 'unauthorized: send Authorization: Bearer <token>, with the token the operator of this server gave you',
        headers: { 'www-authenticate': `Bearer realm="${REALM}"` },
      }
    : {
        status: 401,
        message: 'unauthorized: the bearer token is not the one this server was started with',
        headers: { 'www-authenticate': `Bearer realm="${REALM}", error="invalid_token"` },
      };
}
