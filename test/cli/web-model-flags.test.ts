/**
 * `fisk web --api-key --base-url`: the page's runs use the model endpoint and key given on the
 * command line, as `fisk run` does, over a configuration that names neither.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicText } from '../../src/agenttest/anthropic-wire.js';
import { startFakeModelServer } from '../../src/agenttest/fake-model-server.js';
import type { FakeModelServer } from '../../src/agenttest/fake-model-server.js';
import { anthropicEventStream, streamIfAsked } from '../../src/agenttest/sse-wire.js';
import { until } from '../support/processes.js';
import { ensureBuilt, startFisk } from './support.js';
import type { FiskProcess } from './support.js';

let fake: FakeModelServer;
let dir: string;
let web: FiskProcess | undefined;
beforeAll(async () => {
  ensureBuilt();
  fake = await startFakeModelServer();
  dir = mkdtempSync(join(tmpdir(), 'fisk-web-flags-'));
  writeFileSync(join(dir, 'agent.yaml'), 'identity: web-flags\nsystem_prompt: You answer.\nllm:\n  model: claude-fake-1\n');
}, 180_000);
afterAll(async () => {
  if (web !== undefined && web.child.exitCode === null) {
    web.child.kill('SIGTERM');
    await web.exited;
  }
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('fisk web with the model given on the command line', () => {
  it('runs the page prompts against --base-url with --api-key', async () => {
    fake.reply(streamIfAsked(anthropicText('Hello from the flags.'), anthropicEventStream));
    // no key in the environment and no base_url in the file: only the flags name them
    web = startFisk(['web', '--port', '0', '--api-key', 'flag-key', '--base-url', fake.url], dir, {
      PATH: process.env['PATH'] ?? '',
      HOME: dir,
      XDG_STATE_HOME: join(dir, 'state'),
    });
    const started = web;
    await until(() => started.stdout.includes('\n') || started.child.exitCode !== null, 'fisk web to print its address');
    expect(started.stderr).not.toMatch(/error/i);
    const address = new URL(started.stdout.split('\n')[0] ?? '');
    const token = address.searchParams.get('token') ?? '';
    // a page is a tab on the event stream: the first event names it
    const stream = new AbortController();
    const events = await fetch(new URL(`/api/events?token=${token}`, address), { signal: stream.signal });
    const reader = (events.body as ReadableStream<Uint8Array>).getReader();
    let seen = '';
    let tab: string | undefined;
    while (tab === undefined) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the event stream ended before naming the tab: ${seen}`);
      seen += Buffer.from(value).toString('utf8');
      const control = /data: (\{"type":"control".*\})\n/.exec(seen);
      if (control?.[1] !== undefined) tab = (JSON.parse(control[1]) as { tab: string }).tab;
    }
    const prompt = await fetch(new URL(`/api/prompt?token=${token}`, address), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tab, prompt: 'say hello' }),
    });
    expect(prompt.status, await prompt.text()).toBeLessThan(300);
    await until(() => fake.requests.length === 1, 'the model call');
    expect(fake.requests[0]?.headers, JSON.stringify(fake.requests[0]?.headers)).toMatchObject({ authorization: 'Bearer flag-key' });
    stream.abort();
  }, 60_000);
});
