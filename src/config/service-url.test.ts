import { describe, expect, it } from 'vitest';
import { checkServiceUrl } from './service-url.js';

describe('checkServiceUrl: https unless this machine', () => {
  it.each(['http://127.0.0.1.nip.io/', 'http://127.attacker.example/v1', 'http://localhost.attacker.example/'])(
    'refuses plain http to %s',
    (url) => {
      expect(() => checkServiceUrl(url, 'llm.base_url')).toThrow(/uses http to a host that is not this machine/);
    },
  );
  it.each(['http://127.0.0.1:11434/v1', 'http://[::1]:8080', 'http://localhost:1/', 'http://localhost.:1/'])(
    'accepts plain http to %s',
    (url) => {
      expect(checkServiceUrl(url, 'llm.base_url').protocol).toBe('http:');
    },
  );
});
