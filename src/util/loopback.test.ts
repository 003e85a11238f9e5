import { describe, expect, it } from 'vitest';
import { isLoopbackHost, isLoopbackUrl, loopbackRequestRefusal } from './loopback.js';

describe('isLoopbackHost', () => {
  it.each([
    'localhost',
    'LOCALHOST',
    'localhost.',
    'LocalHost.',
    '127.0.0.1',
    '127.255.0.9',
    '::1',
    '[::1]',
    '0:0:0:0:0:0:0:1',
    '[0::1]',
    '::ffff:127.0.0.1',
    '[::ffff:7f00:1]',
  ])('takes %s as this machine', (host) => expect(isLoopbackHost(host)).toBe(true));

  it.each([
    '127.attacker.example',
    '127.0.0.1.nip.io',
    'localhost.attacker.example',
    'localhost.example',
    'localhost..',
    '.localhost',
    'localhostx',
    '128.0.0.1',
    '0.0.0.0',
    '::',
    '::2',
    '[::1].example',
    '::ffff:10.0.0.1',
    '1::1',
    '',
    '127.1',
  ])('refuses %s', (host) => expect(isLoopbackHost(host)).toBe(false));

  it('reads the host of a parsed URL, whatever spelling the URL parser normalised', () => {
    expect(isLoopbackUrl(new URL('http://[0:0::1]:8080/'))).toBe(true);
    expect(isLoopbackUrl(new URL('http://127.0.0.1.nip.io/'))).toBe(false);
    expect(isLoopbackUrl(new URL('http://127.attacker.example:11434/v1'))).toBe(false);
    expect(isLoopbackUrl(new URL('http://localhost.:4318/v1/traces'))).toBe(true);
    expect(isLoopbackUrl(new URL('http://127.1/'))).toBe(true);
  });
});

describe('loopbackRequestRefusal', () => {
  it.each([
    ['127.0.0.1:8090', undefined],
    ['localhost:8090', 'http://localhost:8090'],
    ['[::1]:8090', 'http://[::1]:8090'],
    ['127.0.0.1', 'http://127.0.0.1:3000'],
    ['localhost.:8090', 'http://localhost.:8090'],
  ])('answers Host %s with Origin %s', (host, origin) => {
    expect(loopbackRequestRefusal(host, origin)).toBeUndefined();
  });

  it.each([undefined, 'evil.example:8090', '127.0.0.1.nip.io:8090', '127.attacker.example', '[::2]:8090', ''])(
    'refuses Host %s',
    (host) => {
      expect(loopbackRequestRefusal(host, undefined)).toMatch(/loopback Host/);
    },
  );

  it.each(['http://evil.example', 'http://127.0.0.1.nip.io:8090', 'null', 'not a url', 'https://localhost.attacker.example'])(
    'refuses Origin %s',
    (origin) => {
      expect(loopbackRequestRefusal('127.0.0.1:8090', origin)).toMatch(/non-loopback web origin/);
    },
  );
});
