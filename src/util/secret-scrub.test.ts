import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { credentialFiles, parseConfigForMode } from '../config/index.js';
import { secretScrubber, secretsFromEnv, secretsFromFiles, withCredentialCopies } from './secret-scrub.js';

describe('secretScrubber', () => {
  it('replaces every occurrence of each value of 8 or more characters, longest first', () => {
    const scrub = secretScrubber([
      { name: 'SHORT', value: 'abcdefgh' },
      { name: 'LONG', value: 'xx-abcdefgh-yy' },
      { name: 'TINY', value: 'dev' },
    ]);
    expect(scrub('a xx-abcdefgh-yy b abcdefgh c abcdefgh dev')).toBe('a [LONG-REDACTED] b [SHORT-REDACTED] c [SHORT-REDACTED] dev');
  });
  it('returns text unchanged when it holds nothing to scrub', () => {
    expect(secretScrubber([])('plain')).toBe('plain');
    expect(secretScrubber([{ name: 'K', value: '   ' }])('   ')).toBe('   ');
  });
  it('takes the credentials named from an environment, skipping unset ones', () => {
    expect(secretsFromEnv({ A: 'sk-ant-123456789', B: '', PATH: '/bin' }, ['A', 'B', 'C'])).toEqual([
      { name: 'A', value: 'sk-ant-123456789' },
    ]);
  });
});

describe('withCredentialCopies', () => {
  it('adds every variable that carries a credential value under another name', () => {
    const env = {
      GH_PAT: 'ghp-secret-0123456789',
      GITHUB_TOKEN: 'ghp-secret-0123456789',
      AUTH: 'Bearer ghp-secret-0123456789',
      SHORT: 'dev',
      ALSO: 'dev',
      PATH: '/bin',
    };
    expect(withCredentialCopies(env, ['GH_PAT', 'SHORT', 'UNSET'])).toEqual(['AUTH', 'GH_PAT', 'GITHUB_TOKEN', 'SHORT', 'UNSET']);
  });
  it('leaves the names as they are when no credential is set', () => {
    expect(withCredentialCopies({ PATH: '/usr/local/bin:/usr/bin' }, ['B', 'A'])).toEqual(['A', 'B']);
  });
});

describe('credential files', () => {
  it('scrubs the contents of the private key and ID token files agent.yaml names, and skips a file that is missing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fisk-scrub-'));
    try {
      const pem = '-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n-----END PRIVATE KEY-----\n';
      writeFileSync(join(dir, 'worker.pem'), pem);
      const oauth = {
        grant: 'cross_app_access',
        client_id: 'c',
        private_key_file: 'worker.pem',
        idp: { token_endpoint: 'https://idp.example.com/token', id_token_file: 'missing.jwt' },
      };
      const config = parseConfigForMode(
        { text: JSON.stringify({ mcp_clients: [{ name: 't', url: 'https://x/mcp', oauth }] }), name: 'agent.yaml', baseDir: dir },
        'info',
      );
      const files = credentialFiles(config);
      expect(files).toEqual([
        { key: 'mcp_clients[0].oauth.private_key_file', path: join(dir, 'worker.pem') },
        { key: 'mcp_clients[0].oauth.idp.id_token_file', path: join(dir, 'missing.jwt') },
      ]);
      const secrets = secretsFromFiles(files);
      expect(secrets.map((s) => s.name)).toEqual(['mcp_clients[0].oauth.private_key_file']);
      expect(secretScrubber(secrets)(`cat says:\n${pem}done`)).toBe('cat says:\n[mcp_clients[0].oauth.private_key_file-REDACTED]\ndone');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
