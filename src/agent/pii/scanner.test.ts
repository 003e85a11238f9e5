import { describe, expect, it } from 'vitest';
import { ibanValid, luhnValid, markerFor, PII_KINDS } from './detectors.js';
import type { PiiKind } from './detectors.js';
import { buildScanner } from './scanner.js';

const scanner = buildScanner();

describe('PII detection: each kind is found and replaced by its marker', () => {
  const cases: [PiiKind, string, string][] = [
    ['email', 'mail ops.team+alerts@corp.example.org now', 'ops.team+alerts@corp.example.org'],
    ['phone', 'call +44 20 7946 0958 today', '+44 20 7946 0958'],
    ['phone', 'call (415) 555-0132 today', '(415) 555-0132'],
    ['phone', 'call 415-555-0132 today', '415-555-0132'],
    ['credit_card', 'card 4111 1111 1111 1111 exp', '4111 1111 1111 1111'],
    ['credit_card', 'card 5500-0000-0000-0004.', '5500-0000-0000-0004'],
    ['iban', 'pay GB82 WEST 1234 5698 7654 32 please', 'GB82 WEST 1234 5698 7654 32'],
    ['iban', 'pay DE89370400440532013000 please', 'DE89370400440532013000'],
    ['ssn', 'ssn 123-45-6789 on file', '123-45-6789'],
    ['ip_address', 'host 203.0.113.42 responded', '203.0.113.42'],
    ['ip_address', 'host 2001:db8:85a3::8a2e:370:7334 responded', '2001:db8:85a3::8a2e:370:7334'],
    ['aws_key', 'key AKIAIOSFODNN7EXAMPLE set', 'AKIAIOSFODNN7EXAMPLE'],
    ['github_token', 'token ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789 used', 'ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789'],
    ['slack_token', 'slack xoxb-1234567890-abcdefghij ok', 'xoxb-1234567890-abcdefghij'],
    ['stripe_key', 'stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc ok', 'sk_live_4eC39HqLyjWDarjtT1zdp7dc'],
    [
      'jwt',
      'jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U end',
      'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
    ],
    [
      'private_key',
      'k -----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY----- done',
      '-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----',
    ],
    ['url_credential', 'see https://api.example.com/v1?access_token=abc123secret&x=1', 'abc123secret'],
    ['url_credential', 'clone https://bob:hunter22@git.example.com/repo', 'hunter22'],
    ['bearer_token', 'header Authorization: Bearer 0123456789abcdefXYZ', 'Bearer 0123456789abcdefXYZ'],
    [
      'bearer_token',
      'curl -H "authorization: bearer eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9abc"',
      'bearer eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9abc',
    ],
    [
      'api_key',
      'ANTHROPIC_API_KEY=sk-ant-api03-Xy7_kq2LmN4pQr8sTu1vWx3yZa5bCd6eFg9hIj0kLm-AbCdEfGh\u0000PATH=/bin',
      'sk-ant-api03-Xy7_kq2LmN4pQr8sTu1vWx3yZa5bCd6eFg9hIj0kLm-AbCdEfGh',
    ],
    ['api_key', 'OPENAI_API_KEY=sk-proj-4fT9qL2mX8vB1nR7kW3zY6hJ0dG5sA ok', 'sk-proj-4fT9qL2mX8vB1nR7kW3zY6hJ0dG5sA'],
    ['api_key', 'key: sk-Ab12Cd34Ef56Gh78Ij90Kl12', 'sk-Ab12Cd34Ef56Gh78Ij90Kl12'],
  ];
  it.each(cases)('%s in %j', (kind, text, secret) => {
    const r = scanner.redact(text);
    expect(r.kinds).toEqual([kind]);
    expect(r.text).toBe(text.replace(secret, markerFor(kind)));
    expect(r.text).not.toContain(secret);
  });

  it('redacts an unterminated private key block to the end of the text (fails closed)', () => {
    const r = scanner.redact('-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC');
    expect(r.text).toBe(markerFor('private_key'));
  });

  it('names every kind with a typed marker', () => {
    expect(markerFor('email')).toBe('[EMAIL-REDACTED]');
    expect(new Set(PII_KINDS.map(markerFor)).size).toBe(PII_KINDS.length);
  });

  it('redacts several hits in one text', () => {
    const r = scanner.redact('a@b.io and 4111111111111111 and 198.51.100.7');
    expect(r.text).toBe('[EMAIL-REDACTED] and [CREDIT-CARD-REDACTED] and [IP-ADDRESS-REDACTED]');
    expect(r.kinds).toEqual(['email', 'credit_card', 'ip_address']);
  });
});

describe('PII detection: checksums reject look-alikes', () => {
  it('Luhn', () => {
    expect(luhnValid('4111111111111111')).toBe(true);
    expect(luhnValid('4111111111111112')).toBe(false);
    expect(scanner.scan('order 4111111111111112 shipped')).toEqual([]);
  });
  it('IBAN mod 97', () => {
    expect(ibanValid('GB82WEST12345698765432')).toBe(true);
    expect(ibanValid('GB83WEST12345698765432')).toBe(false);
  });
  it('SSN area rules', () => {
    expect(scanner.scan('ids 000-12-3456 666-12-3456 900-12-3456 123-00-4567')).toEqual([]);
  });
});

// Technical documentation that must come through untouched: identifiers, hashes, versions,
// timestamps, code. Every line here is a false positive if anything is redacted.
const TECHNICAL_CORPUS = `
# Release notes for fisk-ai 2.14.0 (2026-11-29T15:59:30Z)

Upgrade from v1.2.3 or 1.2.3-beta.4 with \`npm install fisk-ai@2.14.0\`; the lockfile pins @types/node@20.19.43.
Run id 550e8400-e29b-41d4-a716-446655440000 and trace 4bf92f3577b34da6a3ce929d0e0e4736 were logged at 2026-11-29 16:04:05.123+00:00.
Commit 8ae0f50c3b1d2f6e7a9b0c1d2e3f405162738495 (short 8ae0f50) fixed sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855.
The KSUID 0ujsswThIGTUYm2K8FjOOfXtY1K and the base64 blob dGhpcyBpcyBub3QgYSBzZWNyZXQ= are data.
Listen on 127.0.0.1:8080 or 0.0.0.0, netmask 255.255.255.0, IPv6 loopback ::1; std::vector and a::b are code.
Windows build 10.0.19041.1 and .NET 4.0.30319.42000 are versions, as is v2.0.0.1 and version 3.1.4.1.
Timestamps: 12:30:45, 2026-11-29, 20261129T155930, epoch 1732895970123 ms, duration 1h30m45s.
Ports 4222 8222 6222; sizes 786432 bytes, 65536 KiB; ratio 1.10; pi 3.14159265358979.
MAC aa:bb:cc:dd:ee:ff belongs to a test NIC. Hex 0xDEADBEEF and 0x7fffffff are constants.
Phone-like counters: 1234567890 rows, order #20261129001, build 2026.11.29.
Numbers like 1,234,567.89 and 10-20-30 and 2026-11-29-001 are fine.
The config key llm.budget.max_tokens defaults to 500000; call_timeout 120s; tool_timeout 5m.
The package @scope/pkg@1.2.3 resolved; a regex like [A-Z]{2}\\d{2} is not an IBAN.
sk_test is a prefix we document, and ghp_ alone is not a token; "Bearer" authentication uses a token.
`;

describe('PII detection: false positives on technical documentation', () => {
  it('does not take hyphenated words or short ids after sk- for provider keys', () => {
    for (const text of ['use sk-learn-model-selection-and-tuning here', 'flag sk-12345 set', 'task-sk-Ab12Cd34Ef56Gh78Ij90Kl12x']) {
      expect(scanner.scan(text), text).toEqual([]);
    }
  });

  it('leaves UUIDs, hashes, versions, timestamps, loopback addresses and code alone', () => {
    const found = scanner.scan(TECHNICAL_CORPUS).map((f) => `${f.kind}: ${TECHNICAL_CORPUS.slice(f.start, f.end)}`);
    expect(found).toEqual([]);
  });
});
