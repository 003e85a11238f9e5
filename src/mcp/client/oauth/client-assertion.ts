/**
 * `private_key_jwt` client authentication (RFC 7523 section 2.2): every request to the token
 * endpoint carries a short-lived JWT naming this client as issuer and subject and the
 * authorization server as audience, signed with the client's private key. The key is read once,
 * as PEM (PKCS#8, PKCS#1 or SEC1) or as a JWK, and checked against the signing algorithm before
 * any server is reached.
 */
import { constants, createPrivateKey, randomUUID, sign } from 'node:crypto';
import type { JsonWebKey, KeyObject } from 'node:crypto';
import type { AddClientAuthentication } from '@modelcontextprotocol/sdk/client/auth.js';
import { JWT_SIGNING_ALGORITHMS } from '../../../config/types.js';
import type { JwtSigningAlgorithm } from '../../../config/types.js';

/** How long an assertion is good for, in seconds. */
const ASSERTION_LIFETIME = 300;

const CLIENT_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

const CURVE_ALGORITHM: Readonly<Record<string, JwtSigningAlgorithm>> = { prime256v1: 'ES256', secp384r1: 'ES384', secp521r1: 'ES512' };

/** A private key ready to sign assertions. */
export interface SigningKey {
  readonly key: KeyObject;
  readonly algorithm: JwtSigningAlgorithm;
  readonly keyId: string | undefined;
}

function parseKey(text: string, where: string): { key: KeyObject; jwk: JsonWebKey | undefined } {
  const trimmed = text.trim();
  try {
    if (trimmed.startsWith('{')) {
      const jwk = JSON.parse(trimmed) as JsonWebKey;
      return { key: createPrivateKey({ key: jwk, format: 'jwk' }), jwk };
    }
    return { key: createPrivateKey(trimmed), jwk: undefined };
  } catch {
    // the parser's message could quote the key: say only what to fix
    throw new Error(`${where} does not hold a private key: give a PEM private key (-----BEGIN PRIVATE KEY-----) or a private JWK as JSON`);
  }
}

/** The algorithm a key of this type signs with when none is configured. */
function defaultAlgorithm(key: KeyObject): JwtSigningAlgorithm | undefined {
  switch (key.asymmetricKeyType) {
    case 'rsa':
      return 'RS256';
    case 'rsa-pss':
      return 'PS256';
    case 'ec':
      return CURVE_ALGORITHM[key.asymmetricKeyDetails?.namedCurve ?? ''];
    case 'ed25519':
      return 'EdDSA';
    default:
      return undefined;
  }
}

function fits(key: KeyObject, algorithm: JwtSigningAlgorithm): boolean {
  const type = key.asymmetricKeyType;
  if (algorithm.startsWith('RS')) return type === 'rsa';
  if (algorithm.startsWith('PS')) return type === 'rsa' || type === 'rsa-pss';
  if (algorithm === 'EdDSA') return type === 'ed25519';
  return type === 'ec' && CURVE_ALGORITHM[key.asymmetricKeyDetails?.namedCurve ?? ''] === algorithm;
}

function jwkString(jwk: JsonWebKey | undefined, field: string): string | undefined {
  const v = jwk?.[field];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/**
 * Reads `text` as a private key. `where` names the key or file it came from; `algorithm` and
 * `keyId` are the configured ones (a JWK's own `alg` and `kid` fill in for them).
 */
export function loadSigningKey(
  text: string,
  where: string,
  algorithm: JwtSigningAlgorithm | undefined,
  keyId: string | undefined,
  algorithmKey: string,
): SigningKey {
  const { key, jwk } = parseKey(text, where);
  const fromJwk = jwkString(jwk, 'alg');
  const wanted =
    algorithm ??
    (fromJwk !== undefined && (JWT_SIGNING_ALGORITHMS as readonly string[]).includes(fromJwk)
      ? (fromJwk as JwtSigningAlgorithm)
      : defaultAlgorithm(key));
  if (wanted === undefined)
    throw new Error(
      `${where} holds a ${key.asymmetricKeyType ?? 'unknown'} key, which signs none of ${JWT_SIGNING_ALGORITHMS.join(', ')}; use an RSA, EC (P-256, P-384, P-521) or Ed25519 key`,
    );
  if (!fits(key, wanted))
    throw new Error(
      `${algorithmKey} is ${wanted}, which a ${key.asymmetricKeyType ?? 'unknown'} key cannot sign; set the algorithm this key is for, or leave it out to take the key's own`,
    );
  return { key, algorithm: wanted, keyId: keyId ?? jwkString(jwk, 'kid') };
}

function signature(key: KeyObject, algorithm: JwtSigningAlgorithm, data: Buffer): Buffer {
  if (algorithm === 'EdDSA') return sign(null, data, key);
  const digest = `sha${algorithm.slice(2)}`;
  if (algorithm.startsWith('ES')) return sign(digest, data, { key, dsaEncoding: 'ieee-p1363' });
  if (algorithm.startsWith('PS'))
    return sign(digest, data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST });
  return sign(digest, data, key);
}

const part = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A client assertion for `clientId` addressed to `audience`, signed now. */
export function clientAssertion(k: SigningKey, clientId: string, audience: string, now: number = Math.floor(Date.now() / 1000)): string {
  const header = { alg: k.algorithm, typ: 'JWT', ...(k.keyId === undefined ? {} : { kid: k.keyId }) };
  const claims = { iss: clientId, sub: clientId, aud: audience, iat: now, exp: now + ASSERTION_LIFETIME, jti: randomUUID() };
  const input = `${part(header)}.${part(claims)}`;
  return `${input}.${signature(k.key, k.algorithm, Buffer.from(input)).toString('base64url')}`;
}

/**
 * The SDK hook that authenticates every token request with a fresh assertion: addressed to the
 * authorization server's issuer, or to the token endpoint when its metadata names none.
 * `issued` hears each assertion, so it can be kept out of anything printed.
 */
export function privateKeyJwtAuth(k: SigningKey, clientId: string, issued: (assertion: string) => void): AddClientAuthentication {
  return (_headers, params, url, metadata) => {
    const assertion = clientAssertion(k, clientId, metadata?.issuer ?? String(url));
    issued(assertion);
    params.set('client_assertion_type', CLIENT_ASSERTION_TYPE);
    params.set('client_assertion', assertion);
  };
}
