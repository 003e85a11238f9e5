import { mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicRateLimited, anthropicText } from '../agenttest/anthropic-wire.js';
import { startFakeModelServer } from '../agenttest/fake-model-server.js';
import type { FakeModelServer } from '../agenttest/fake-model-server.js';
import { AnthropicProvider } from './anthropic/provider.js';
import { openHttpDebugLog } from './http-debug.js';
import type { Request } from './provider.js';
import { openTraceFile } from './trace.js';

let server: FakeModelServer;
let dir: string;
beforeAll(async () => {
  server = await startFakeModelServer();
  dir = mkdtempSync(join(tmpdir(), 'fisk-httpdebug-'));
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const req: Request = {
  model: 'claude-test',
  system: [{ text: 'sys' }],
  messages: [{ role: 'user', content: [{ type: 'text', text: 'secret question' }] }],
  tools: [],
  maxOutputTokens: 64,
  thinking: 'unset',
  interactive: false,
  noPromptCache: false,
};

describe('HTTP debug log', () => {
  it('replaces an existing file (never following a planted link), 0600, bodies only, no key', async () => {
    const path = join(dir, 'http-debug.log');
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'keep me');
    symlinkSync(victim, path);
    const log = openHttpDebugLog(path);
    server.reply(anthropicText('the answer'));
    const p = new AnthropicProvider({
      baseUrl: server.url,
      apiKey: 'sk-do-not-log',
      callTimeoutMs: 5000,
      fetchMiddleware: [log.middleware],
      env: {},
    });
    await p.call(req, new AbortController().signal);
    log.close();
    expect(readFileSync(victim, 'utf8')).toBe('keep me');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const text = readFileSync(path, 'utf8');
    expect(text).toContain(`=== HTTP request: POST ${server.url}/v1/messages ===`);
    expect(text).toContain('"text": "secret question"');
    expect(text).toContain('=== HTTP response: 200 ===');
    expect(text).toContain('"text": "the answer"');
    expect(text).not.toContain('sk-do-not-log');
  });
});

describe('trace file', () => {
  it('records each attempt with its retry count, and refuses an existing path', async () => {
    const path = join(dir, 'trace.jsonl');
    const trace = openTraceFile(path);
    let iter = 3;
    server.reply(anthropicRateLimited(1), anthropicText('ok'));
    const provider = new AnthropicProvider({
      baseUrl: server.url,
      apiKey: 'sk-do-not-trace',
      callTimeoutMs: 5000,
      fetchMiddleware: [trace.middleware({ iteration: () => iter })],
      env: {},
    });
    await provider.call(req, new AbortController().signal);
    iter = 4;
    trace.close();
    const text = readFileSync(path, 'utf8');
    expect(text).not.toContain('sk-do-not-trace');
    const events = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(events.map((e) => [e.type, e.attempt, e.iter, e.status_code])).toEqual([
      ['request', 0, 3, undefined],
      ['response', 0, 3, 429],
      ['request', 1, 3, undefined],
      ['response', 1, 3, 200],
    ]);
    expect(events[0]?.body).toMatchObject({ model: 'claude-test' });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(() => openTraceFile(path)).toThrow(/EEXIST/);
  });

  it('records a transport failure as an error event', async () => {
    const dead = await startFakeModelServer();
    await dead.close();
    const events: { type: string }[] = [];
    const { traceMiddleware } = await import('./trace.js');
    const p = new AnthropicProvider({
      baseUrl: dead.url,
      callTimeoutMs: 5000,
      maxRetries: 0,
      fetchMiddleware: [traceMiddleware((e) => events.push(e))],
      env: {},
    });
    await expect(p.call(req, new AbortController().signal)).rejects.toMatchObject({ code: 'network' });
    expect(events.map((e) => e.type)).toEqual(['request', 'error']);
  });
});
