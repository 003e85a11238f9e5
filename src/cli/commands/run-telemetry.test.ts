// `fisk run` with telemetry on, exporting to an OTLP/HTTP receiver run in-process: the spans and
// metrics it decodes are what a collector would have got.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { anthropicError, anthropicText, anthropicToolUse } from '../../agenttest/anthropic-wire.js';
import { startFakeModelServer } from '../../agenttest/fake-model-server.js';
import type { FakeModelServer } from '../../agenttest/fake-model-server.js';
import { startOtlpReceiver } from '../../agenttest/index.js';
import type { OtlpReceiver, ReceivedSpan } from '../../agenttest/otlp-receiver.js';
import { EXIT } from '../exit-codes.js';
import { runCli } from '../program.js';
import { captureIo } from '../test-io.js';

const FIXTURE = resolve(import.meta.dirname, '../../../test/fixtures/fisk-app.mjs');
const PROMPT = 'list the orange streams';
const ANSWER = 'There is one violet stream.';

let dir: string;
let fake: FakeModelServer;
let receiver: OtlpReceiver;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fisk-run-otel-'));
  fake = await startFakeModelServer();
  receiver = await startOtlpReceiver();
});
afterEach(async () => {
  await fake.close();
  await receiver.close();
  rmSync(dir, { recursive: true, force: true });
});

function agent(telemetry: string): string {
  const path = join(dir, 'agent.yaml');
  writeFileSync(
    path,
    `identity: otel-runner\napplication_path: ${FIXTURE}\nsystem_prompt: You run magenta things.\nllm:\n  model: claude-fake-1\n${telemetry}`,
  );
  return path;
}

async function run(
  telemetry: string,
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<{ code: number; out: string; err: string }> {
  const io = captureIo({ PATH: process.env['PATH'], ...env }, dir);
  const code = await runCli(['run', '--config', agent(telemetry), '--base-url', fake.url, '--api-key', 'sk-test', ...args, PROMPT], io);
  return { code, out: io.stdout(), err: io.stderr() };
}

function one(spans: readonly ReceivedSpan[], name: string): ReceivedSpan {
  const found = spans.filter((s) => s.name === name);
  expect(found.map((s) => s.name)).toEqual([name]);
  return found[0] as ReceivedSpan;
}

/** A string attribute's value; anything else fails the test. */
function text(value: unknown): string {
  expect(typeof value).toBe('string');
  return value as string;
}

function replyWithTools(): void {
  fake.reply(
    anthropicToolUse(
      [
        { id: 'toolu_ls', name: 'stream_ls', input: {} },
        { id: 'toolu_purge', name: 'stream_purge', input: { stream: 'orders' } },
        { id: 'toolu_nope', name: 'no_such_tool', input: {} },
      ],
      { usage: { input_tokens: 30, output_tokens: 9 } },
    ),
    anthropicText(ANSWER, { usage: { input_tokens: 50, output_tokens: 7 } }),
  );
}

describe.each(['http/protobuf', 'http/json'] as const)('fisk run exporting over %s', (protocol) => {
  it('exports the run, startup, chat and tool spans and the GenAI metrics, with no content', async () => {
    replyWithTools();
    const result = await run(`telemetry:\n  enabled: true\n  endpoint: ${receiver.url}\n  protocol: ${protocol}\n`);
    expect(result.code).toBe(EXIT.ok);
    expect(result.out).toBe(`${ANSWER}\n`);
    expect(result.err).toMatch(/telemetry: 7 of 7 spans delivered/);
    expect(new Set(receiver.exports.map((e) => e.encoding))).toEqual(new Set([protocol === 'http/json' ? 'json' : 'protobuf']));

    const spans = receiver.spans;
    const root = one(spans, 'invoke_agent otel-runner');
    expect(root.parentSpanId).toBe('');
    expect(root.attributes).toMatchObject({ 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'otel-runner' });
    expect(root.status.code).not.toBe(2);
    expect(root.resource['service.name']).toBe('otel-runner');
    for (const span of spans) {
      expect(span.traceId).toBe(root.traceId);
      if (span !== root) expect(span.parentSpanId).toBe(root.spanId);
    }
    one(spans, 'fisk.startup');

    const chats = spans.filter((s) => s.name === 'chat claude-fake-1');
    expect(chats).toHaveLength(2);
    for (const chat of chats) {
      expect(chat.kind).toBe(3);
      expect(chat.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'anthropic',
        'gen_ai.request.model': 'claude-fake-1',
      });
      expect(chat.events.map((e) => e.name)).toEqual(['fisk.http.attempt']);
      expect(chat.events[0]?.attributes).toMatchObject({
        'http.request.method': 'POST',
        'http.response.status_code': 200,
        'server.address': '127.0.0.1',
      });
    }
    expect(chats.map((c) => [c.attributes['gen_ai.usage.input_tokens'], c.attributes['gen_ai.usage.output_tokens']]).sort()).toEqual([
      [30, 9],
      [50, 7],
    ]);
    expect(chats.map((c) => c.attributes['gen_ai.response.finish_reasons'])).toContainEqual(['tool_use']);

    const ls = one(spans, 'execute_tool stream_ls');
    expect(ls.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'stream_ls',
      'gen_ai.tool.call.id': 'toolu_ls',
      'fisk.tool.kind': 'command',
      'fisk.tool.exit': 'ok',
      'fisk.tool.exit_code': 0,
    });
    // a gated call with nobody to ask is declined without running; the span is there all the same
    const purge = one(spans, 'execute_tool stream_purge');
    expect(purge.attributes).toMatchObject({ 'fisk.tool.exit': 'denied', 'error.type': 'denied' });
    expect(purge.status.code).toBe(2);
    const unknown = one(spans, 'execute_tool no_such_tool');
    expect(unknown.attributes).toMatchObject({ 'fisk.tool.exit': 'unknown_tool', 'error.type': 'unknown_tool' });

    const tokens = receiver.metrics.filter((m) => m.name === 'gen_ai.client.token.usage');
    expect(tokens.length).toBeGreaterThan(0);
    const points = tokens.flatMap((m) => m.points);
    const input = points.find((p) => p.attributes['gen_ai.token.type'] === 'input');
    expect(input).toMatchObject({
      count: 2,
      sum: 80,
      attributes: { 'gen_ai.provider.name': 'anthropic', 'gen_ai.request.model': 'claude-fake-1' },
    });
    expect(points.find((p) => p.attributes['gen_ai.token.type'] === 'output')).toMatchObject({ count: 2, sum: 16 });
    const duration = receiver.metrics.filter((m) => m.name === 'gen_ai.client.operation.duration').flatMap((m) => m.points);
    expect(duration.reduce((n, p) => n + (p.count ?? 0), 0)).toBe(2);
    expect(duration[0]?.explicitBounds?.[0]).toBe(0.01);

    // content capture is off: nothing anyone wrote leaves the process
    const bodies = receiver.allBodies().toString('latin1');
    for (const text of ['orange', 'violet', 'magenta', 'orders']) expect(bodies).not.toContain(text);
  });
});

describe('fisk run telemetry switches', () => {
  it('captures the conversation when capture_content is on', async () => {
    replyWithTools();
    const r = await run(`telemetry:\n  enabled: true\n  endpoint: ${receiver.url}\n  capture_content: true\n`);
    expect(r.code).toBe(EXIT.ok);
    const startup = one(receiver.spans, 'fisk.startup');
    expect(text(startup.attributes['gen_ai.system_instructions'])).toContain('magenta');
    const chats = receiver.spans.filter((s) => s.name === 'chat claude-fake-1');
    expect(chats.map((c) => text(c.attributes['gen_ai.input.messages'])).join('')).toContain('orange');
    expect(chats.map((c) => text(c.attributes['gen_ai.output.messages'])).join('')).toContain('violet');
    expect(text(one(receiver.spans, 'execute_tool stream_purge').attributes['gen_ai.tool.call.arguments'])).toContain('orders');
  });

  it('records how long each journal append took, for a checkpointed run', async () => {
    fake.reply(anthropicText(ANSWER));
    const r = await run(`telemetry:\n  enabled: true\n  endpoint: ${receiver.url}\n`, ['--checkpoint', '--state-dir', join(dir, 'runs')]);
    expect(r.code).toBe(EXIT.ok);
    const appends = receiver.metrics.filter((m) => m.name === 'fisk.session.append.duration');
    expect(appends.length).toBeGreaterThan(0);
    // the answer and the record that ends the run are stored together: one append
    expect(appends.flatMap((m) => m.points).reduce((n, p) => n + (p.count ?? 0), 0)).toBe(1);
  });

  it('exports nothing with --no-telemetry, and prints no delivery line', async () => {
    fake.reply(anthropicText(ANSWER));
    const r = await run(`telemetry:\n  enabled: true\n  endpoint: ${receiver.url}\n`, ['--no-telemetry']);
    expect(r.code).toBe(EXIT.ok);
    expect(r.err).not.toContain('spans delivered');
    expect(receiver.exports).toHaveLength(0);
  });

  it('notes OTLP variables that are set while telemetry is off, and exports nothing', async () => {
    fake.reply(anthropicText(ANSWER));
    const r = await run('', [], { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    expect(r.code).toBe(EXIT.ok);
    expect(r.err).toContain(
      'note: telemetry is off (telemetry.enabled is not true in agent.yaml), so OTEL_EXPORTER_OTLP_ENDPOINT is not used',
    );
    expect(receiver.exports).toHaveLength(0);
  });

  it('stops with the configuration status on a bad endpoint, before contacting the model', async () => {
    const r = await run('telemetry:\n  enabled: true\n', [], { OTEL_EXPORTER_OTLP_ENDPOINT: 'ftp://collector.example' });
    expect(r.code).toBe(EXIT.config);
    expect(r.err).toContain('OTEL_EXPORTER_OTLP_ENDPOINT');
    expect(fake.requests).toHaveLength(0);
  });

  it('marks the root and chat spans failed when the model call fails', async () => {
    fake.reply(anthropicError(400, 'invalid_request_error', 'messages: bad'));
    const r = await run(`telemetry:\n  enabled: true\n  endpoint: ${receiver.url}\n`);
    expect(r.code).toBe(EXIT.error);
    const root = one(receiver.spans, 'invoke_agent otel-runner');
    expect(root.status.code).toBe(2);
    expect(root.attributes['error.type']).toBe('provider_error');
    const chat = one(receiver.spans, 'chat claude-fake-1');
    expect(chat.attributes['error.type']).toBe('invalid_request');
  });
});
