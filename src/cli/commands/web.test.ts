import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { anthropicText } from '../../agenttest/anthropic-wire.js';
import { startFakeModelServer } from '../../agenttest/fake-model-server.js';
import { anthropicEventStream, streamIfAsked } from '../../agenttest/sse-wire.js';
import type { FetchLike } from '../../llm/http.js';
import { runCli } from '../program.js';
import { captureIo } from '../test-io.js';
import { DEFAULT_WEB_ADDRESS, DEFAULT_WEB_PORT, parseWebPort, registerWeb, webAddress } from './web.js';

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
    expect(io.stderr()).toContain(
      "--base-url is empty; give it a value, or leave it out to use the provider's URL variable or llm.base_url",
    );
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

/** Opens a tab on the page's event stream and returns its id and the stream's abort. */
async function openTab(address: URL, token: string): Promise<{ readonly tab: string; readonly abort: () => void }> {
  const stream = new AbortController();
  const events = await fetch(new URL(`/api/events?token=${token}`, address), { signal: stream.signal });
  const reader = (events.body as ReadableStream<Uint8Array>).getReader();
  let seen = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the event stream ended before naming the tab: ${seen}`);
    seen += Buffer.from(value).toString('utf8');
    const control = /data: (\{"type":"control".*\})\n/.exec(seen);
    if (control?.[1] !== undefined) return { tab: (JSON.parse(control[1]) as { tab: string }).tab, abort: () => stream.abort() };
  }
}

describe('fisk web debug files and fetch', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'fisk-web-debug-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('sends the page runs through the injected fetch and writes --trace and --http-debug as fisk run does', async () => {
    const fake = await startFakeModelServer();
    try {
      fake.reply(streamIfAsked(anthropicText('Hello from the trace.'), anthropicEventStream));
      writeFileSync(join(dir, 'agent.yaml'), 'identity: web-debug\nsystem_prompt: You answer.\nllm:\n  model: claude-fake-1\n');
      const io = captureIo({ HOME: dir, XDG_STATE_HOME: join(dir, 'state') }, dir);
      const fetched: string[] = [];
      const viaTest: FetchLike = (input, init) => {
        fetched.push(String(input instanceof Request ? input.url : input));
        return fetch(input, init);
      };
      let stop: (() => void) | undefined;
      const program = new Command('fisk').exitOverride();
      registerWeb(program, io, { fetch: viaTest, onInterrupt: (handler) => ((stop = handler), () => undefined) });
      const served = program.parseAsync(
        ['web', '--port', '0', '--api-key', 'k', '--base-url', fake.url, '--trace', 'trace.jsonl', '--http-debug'],
        { from: 'user' },
      );
      await vi.waitFor(() => expect(io.stdout()).toContain('\n'), { timeout: 30_000, interval: 20 });
      const address = new URL(io.stdout().split('\n')[0] ?? '');
      const token = address.searchParams.get('token') ?? '';
      const { tab, abort } = await openTab(address, token);
      const prompt = await fetch(new URL(`/api/prompt?token=${token}`, address), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ tab, prompt: 'say hello' }),
      });
      expect(prompt.status, await prompt.text()).toBeLessThan(300);
      await vi.waitFor(() => expect(readFileSync(join(dir, 'trace.jsonl'), 'utf8')).toContain('"type":"response"'), {
        timeout: 30_000,
        interval: 20,
      });
      abort();
      expect(stop).toBeDefined();
      stop?.();
      await served;

      expect(fetched).toEqual([`${fake.url}/v1/messages`]);
      const trace = readFileSync(join(dir, 'trace.jsonl'), 'utf8');
      expect(
        trace
          .trim()
          .split('\n')
          .map((l) => (JSON.parse(l) as { type: string }).type),
      ).toEqual(['session', 'request', 'response']);
      expect(trace).not.toContain('"k"');
      expect(statSync(join(dir, 'trace.jsonl')).mode & 0o777).toBe(0o600);
      expect(readFileSync(join(dir, 'http-debug.log'), 'utf8')).toContain('=== HTTP request: POST');
      expect(io.stderr()).toContain('Writing model API request and response bodies to http-debug.log');
      expect(io.stderr()).toContain('web server stopped');
    } finally {
      await fake.close();
    }
  }, 60_000);

  it('refuses a --trace file that already exists before opening anything', async () => {
    writeFileSync(join(dir, 'agent.yaml'), 'identity: web-debug\nsystem_prompt: You answer.\nllm:\n  model: claude-fake-1\n');
    writeFileSync(join(dir, 'trace.jsonl'), 'kept\n');
    const io = captureIo({ ANTHROPIC_API_KEY: 'k' }, dir);
    expect(await runCli(['web', '--port', '0', '--trace', 'trace.jsonl'], io)).toBe(2);
    expect(io.stderr()).toContain('--trace trace.jsonl: cannot create the trace file: it already exists');
    expect(readFileSync(join(dir, 'trace.jsonl'), 'utf8')).toBe('kept\n');
  });
});
