import { constants, createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { clientAssertion, loadSigningKey, privateKeyJwtAuth } from './client-assertion.js';

const ALG_KEY = 'mcp_clients[0].oauth.signing_algorithm';
const WHERE = 'mcp_clients[0].oauth.private_key_env';

function decode(jwt: string): { header: Record<string, unknown>; claims: Record<string, unknown>; input: string; signature: Buffer } {
  const [h, c, s] = jwt.split('.');
  return {
    header: JSON.parse(Buffer.from(h ?? '', 'base64url').toString()) as Record<string, unknown>,
    claims: JSON.parse(Buffer.from(c ?? '', 'base64url').toString()) as Record<string, unknown>,
    input: `${h}.${c}`,
    signature: Buffer.from(s ?? '', 'base64url'),
  };
}

function verifies(jwt: string, publicKey: KeyObject, alg: string): boolean {
  const { input, signature } = decode(jwt);
  const data = Buffer.from(input);
  if (alg === 'EdDSA') return verify(null, data, publicKey, signature);
  const digest = `sha${alg.slice(2)}`;
  if (alg.startsWith('ES')) return verify(digest, data, { key: publicKey, dsaEncoding: 'ieee-p1363' }, signature);
  if (alg.startsWith('PS'))
    return verify(
      digest,
      data,
      { key: publicKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST },
      signature,
    );
  return verify(digest, data, publicKey, signature);
}

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const p256 = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' });
const ed = generateKeyPairSync('ed25519');
const pkcs8 = (k: KeyObject): string => k.export({ type: 'pkcs8', format: 'pem' }).toString();

describe('private_key_jwt client assertions', () => {
  it.each([
    ['an RSA key', pkcs8(rsa.privateKey), rsa.publicKey, undefined, 'RS256'],
    ['an RSA key for PS384', pkcs8(rsa.privateKey), rsa.publicKey, 'PS384' as const, 'PS384'],
    ['an RSA key in PKCS#1', rsa.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(), rsa.publicKey, 'RS512' as const, 'RS512'],
    ['a P-256 key', pkcs8(p256.privateKey), p256.publicKey, undefined, 'ES256'],
    ['a P-256 key in SEC1', p256.privateKey.export({ type: 'sec1', format: 'pem' }).toString(), p256.publicKey, 'ES256' as const, 'ES256'],
    ['a P-384 key', pkcs8(p384.privateKey), p384.publicKey, undefined, 'ES384'],
    ['an Ed25519 key', pkcs8(ed.privateKey), ed.publicKey, undefined, 'EdDSA'],
  ])('signs with %s, verifiable with its public key', (_name, text, publicKey, configured, expected) => {
    const key = loadSigningKey(text, WHERE, configured, undefined, ALG_KEY);
    expect(key.algorithm).toBe(expected);
    const jwt = clientAssertion(key, 'worker', 'https://as.example.com', 1_000_000);
    const { header, claims } = decode(jwt);
    expect(header).toEqual({ alg: expected, typ: 'JWT' });
    expect(claims).toMatchObject({ iss: 'worker', sub: 'worker', aud: 'https://as.example.com', iat: 1_000_000, exp: 1_000_300 });
    expect(typeof claims['jti']).toBe('string');
    expect(verifies(jwt, publicKey, expected)).toBe(true);
    expect(verifies(jwt, generateKeyPairSync('ed25519').publicKey, 'EdDSA')).toBe(false);
  });

  it("takes a JWK's alg and kid, and a configured key_id over the JWK's", () => {
    const jwk = { ...p256.privateKey.export({ format: 'jwk' }), alg: 'ES256', kid: 'from-jwk' };
    const fromJwk = loadSigningKey(JSON.stringify(jwk), WHERE, undefined, undefined, ALG_KEY);
    expect(fromJwk.algorithm).toBe('ES256');
    const jwt = clientAssertion(fromJwk, 'worker', 'https://as.example.com');
    expect(decode(jwt).header['kid']).toBe('from-jwk');
    expect(verifies(jwt, createPublicKey(p256.privateKey), 'ES256')).toBe(true);
    const configured = loadSigningKey(JSON.stringify(jwk), WHERE, undefined, 'configured', ALG_KEY);
    expect(decode(clientAssertion(configured, 'w', 'a')).header['kid']).toBe('configured');
  });

  it('gives each assertion its own jti', () => {
    const key = loadSigningKey(pkcs8(ed.privateKey), WHERE, undefined, undefined, ALG_KEY);
    expect(decode(clientAssertion(key, 'w', 'a')).claims['jti']).not.toBe(decode(clientAssertion(key, 'w', 'a')).claims['jti']);
  });

  it('refuses an algorithm the key cannot sign, naming the algorithm key', () => {
    expect(() => loadSigningKey(pkcs8(rsa.privateKey), WHERE, 'ES256', undefined, ALG_KEY)).toThrow(
      /mcp_clients\[0\]\.oauth\.signing_algorithm is ES256, which a rsa key/,
    );
    expect(() => loadSigningKey(pkcs8(p256.privateKey), WHERE, 'ES384', undefined, ALG_KEY)).toThrow(/signing_algorithm is ES384/);
    expect(() => loadSigningKey(pkcs8(ed.privateKey), WHERE, 'RS256', undefined, ALG_KEY)).toThrow(/signing_algorithm is RS256/);
  });

  it('refuses a public key, a symmetric JWK and text that is no key, without quoting it', () => {
    const publicPem = rsa.publicKey.export({ type: 'spki', format: 'pem' }).toString();
    for (const text of [
      publicPem,
      JSON.stringify({ kty: 'oct', k: 'c2VjcmV0LXNlY3JldC1zZWNyZXQ' }),
      'not-a-key-at-all-0123456789',
      '{"kty":',
    ]) {
      let message = '';
      try {
        loadSigningKey(text, WHERE, undefined, undefined, ALG_KEY);
      } catch (err) {
        message = err instanceof Error ? err.message : String(err);
      }
      expect(message).toMatch(/mcp_clients\[0\]\.oauth\.private_key_env does not hold a private key/);
      expect(message).not.toContain(text.slice(0, 20));
    }
  });

  it('refuses a key of a curve no JWT algorithm signs with', () => {
    const k = generateKeyPairSync('ec', { namedCurve: 'secp256k1' });
    expect(() => loadSigningKey(pkcs8(k.privateKey), WHERE, undefined, undefined, ALG_KEY)).toThrow(/signs none of/);
  });

  it('authenticates a token request addressed to the issuer, or else the token endpoint, and reports each assertion', async () => {
    const key = loadSigningKey(pkcs8(p256.privateKey), WHERE, undefined, undefined, ALG_KEY);
    const seen: string[] = [];
    const add = privateKeyJwtAuth(key, 'worker', (a) => seen.push(a));
    const params = new URLSearchParams({ grant_type: 'client_credentials' });
    await add(new Headers(), params, 'https://as.example.com/token', {
      issuer: 'https://as.example.com/',
      authorization_endpoint: 'x',
      token_endpoint: 'https://as.example.com/token',
      response_types_supported: ['code'],
    });
    expect(params.get('client_assertion_type')).toBe('urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
    expect(decode(params.get('client_assertion') ?? '').claims['aud']).toBe('https://as.example.com/');
    const bare = new URLSearchParams();
    await add(new Headers(), bare, new URL('https://as.example.com/oauth/token'));
    expect(decode(bare.get('client_assertion') ?? '').claims['aud']).toBe('https://as.example.com/oauth/token');
    expect(seen).toEqual([params.get('client_assertion'), bare.get('client_assertion')]);
  });
});
