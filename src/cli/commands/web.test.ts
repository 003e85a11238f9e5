import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../program.js';
import { captureIo } from '../test-io.js';
import { DEFAULT_WEB_ADDRESS, DEFAULT_WEB_PORT, parseWebPort, webAddress } from './web.js';

describe('fisk web flags', () => {
  it('listens on 127.0.0.1:8090 unless told otherwise; port 0 picks a free one', () => {
    expect(parseWebPort(undefined)).toBe(DEFAULT_WEB_PORT);
    expect(parseWebPort(' 0 ')).toBe(0);
    expect(parseWebPort('65535')).toBe(65535);
    expect(webAddress(undefined)).toEqual({ host: DEFAULT_WEB_ADDRESS });
    expect(webAddress('::1')).toEqual({ host: '::1' });
    expect(webAddress('localhost')).toEqual({ host: 'localhost' });
  });

  it.each(['abc', '-1', '65536', '8090x', '', '1e3'])('refuses --port %j, naming the flag', (port) => {
    expect(() => parseWebPort(port)).toThrow(/--port must be a TCP port/);
  });

  it('serves another address only with a warning that says who can reach it', () => {
    const wide = webAddress('0.0.0.0');
    expect(wide.host).toBe('0.0.0.0');
    expect(wide.warning).toMatch(/not a loopback address/);
    expect(webAddress('127.0.0.1.nip.io').warning).toMatch(/not a loopback address/);
    expect(() => webAddress('  ')).toThrow(/--address must not be empty/);
  });
});

describe('fisk web on the command line', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'fisk-web-cli-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('exits 2 on a bad port before reading the configuration', async () => {
    const io = captureIo({}, dir);
    expect(await runCli(['web', '--port', 'http'], io)).toBe(2);
    expect(io.stderr()).toContain('--port must be a TCP port from 1 to 65535 (or 0 for any free port), got "http"');
  });

  it('exits 2 on an empty --base-url or --api-key before reading the configuration', async () => {
    const io = captureIo({}, dir);
    expect(await runCli(['web', '--base-url', ' '], io)).toBe(2);
    expect(io.stderr()).toContain("--base-url is empty; give it a value, or leave it out to use the provider's URL variable or llm.base_url");
    const io2 = captureIo({}, dir);
    expect(await runCli(['web', '--api-key', ''], io2)).toBe(2);
    expect(io2.stderr()).toContain('--api-key is empty');
  });

  it('exits 3 naming the missing configuration', async () => {
    const io = captureIo({}, dir);
    expect(await runCli(['web', '--port', '0'], io)).toBe(3);
    expect(io.stderr()).toContain('pass --config with the path to agent.yaml, or write a starter one with fisk init');
  });

  it('exits 3 when the configuration cannot run a model', async () => {
    writeFileSync(join(dir, 'agent.yaml'), 'identity: demo\nsystem_prompt: hi\nllm:\n  model: claude-fake-1\n');
    const io = captureIo({}, dir);
    expect(await runCli(['web', '--port', '0'], io)).toBe(3);
    expect(io.stderr()).toContain('ANTHROPIC_API_KEY');
  });
});
