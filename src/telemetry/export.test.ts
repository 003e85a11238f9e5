import { createServer } from 'node:http';
import { connect as rawConnect } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { freePort, startFakeModelServer, startOtlpReceiver } from '../agenttest/index.js';
import type { FakeModelServer, OtlpReceiver, ReceivedSpan } from '../agenttest/index.js';
import {
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_SYSTEM_INSTRUCTIONS,
  ATTR_GEN_AI_TOKEN_TYPE,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  METRIC_GEN_AI_CLIENT_OPERATION_DURATION,
  METRIC_GEN_AI_CLIENT_TOKEN_USAGE,
} from '@opentelemetry/semantic-conventions/incubating';
import { ATTR_ERROR_TYPE, ATTR_HTTP_RESPONSE_STATUS_CODE, ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { composeFetch } from '../llm/http.js';
import type { CapturedMessage } from './content.js';
import type { OtlpProtocol } from './settings.js';
import { resolveTelemetrySettings } from './settings.js';
import { METRIC_KNOWLEDGE_DEGRADED, METRIC_SESSION_APPEND_DURATION, SECONDS_BUCKETS, TOKEN_BUCKETS } from './instruments.js';
import { HTTP_ATTEMPT_EVENT, startTelemetry, STARTUP_SPAN } from './provider.js';
import type { Telemetry } from './provider.js';
import { eventually } from '../agenttest/eventually.js';

const SECRET_PROMPT = 'system-secret-zebra-7731';
const SECRET_USER = 'user-secret-quokka-4410';
const SECRET_ARGS = 'argument-secret-narwhal-9902';
const SECRET_RESULT = 'result-secret-axolotl-5521';
const SECRET_SIGNATURE = 'signature-secret-pangolin-1180';

async function open(receiver: OtlpReceiver, protocol: OtlpProtocol, extra: { capture?: boolean; ratio?: number } = {}): Promise<Telemetry> {
  const settings = resolveTelemetrySettings({
    config: {
      enabled: true,
      endpoint: receiver.url,
      protocol,
      captureContent: extra.capture ?? false,
      noMetrics: false,
      sampleRatio: extra.ratio,
    },
    identity: 'helper',
    env: {},
  });
  return startTelemetry(settings, { serviceVersion: '0.1.0', exportTimeoutMs: 5_000 });
}

const conversation: CapturedMessage[] = [
  { role: 'user', parts: [{ type: 'text', content: SECRET_USER }] },
  {
    role: 'assistant',
    parts: [
      { type: 'reasoning', content: 'thinking it over', signature: SECRET_SIGNATURE },
      { type: 'tool_call', id: 'call-1', name: 'read_file', arguments: { path: SECRET_ARGS } },
    ],
  },
  { role: 'tool', parts: [{ type: 'tool_call_response', id: 'call-1', response: SECRET_RESULT }] },
];

/** One run as the host drives it: startup, a model call retried once, a tool call, the end. */
async function driveRun(tel: Telemetry, model: FakeModelServer): Promise<void> {
  const run = tel.startRun({ agentName: 'helper', conversationId: 'conv-42' });
  const startup = run.startup();
  startup.recordSystemInstructions(() => SECRET_PROMPT);
  startup.end();

  model.reply({ status: 429, body: { error: 'slow down' } }, { status: 200, body: { ok: true } });
  const chat = run.chat({ provider: 'anthropic', model: 'claude-test', serverAddress: '127.0.0.1' });
  chat.recordInput(() => conversation.slice(0, 1));
  // Composed the way the model clients compose their fetch, with this middleware last (innermost).
  const tracedFetch = composeFetch(fetch, [chat.fetchMiddleware()]);
  const first = await tracedFetch(`${model.url}/v1/messages`, { method: 'POST', body: '{}' });
  expect(first.status).toBe(429);
  const second = await tracedFetch(`${model.url}/v1/messages`, { method: 'POST', body: '{}' });
  expect(second.status).toBe(200);
  chat.recordOutput(() => conversation.slice(1, 2));
  chat.response({ id: 'msg-1', model: 'claude-test-2026', finishReasons: ['tool_use'], inputTokens: 1200, outputTokens: 35 });
  chat.end();

  await run.toolCall(
    'read_file',
    'builtin',
    (span) => {
      span.recordArguments(() => ({ path: SECRET_ARGS }));
      span.recordResult(() => SECRET_RESULT);
      span.exit('ok');
      return Promise.resolve('done');
    },
    { callId: 'call-1' },
  );
  await run.toolCall('no_such_tool', 'builtin', (span) => {
    span.exit('unknown_tool');
    return Promise.resolve(undefined);
  });
  await expect(run.toolCall('explodes', 'command', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');

  const chat2 = run.chat({ provider: 'anthropic', model: 'claude-test', serverAddress: '127.0.0.1' });
  chat2.recordInput(() => conversation);
  chat2.response({ model: 'claude-test-2026', inputTokens: 20000, outputTokens: 3 });
  chat2.end('rate_limited');

  tel.recordDegradedKnowledge('embed_query');
  tel.recordSessionAppend('file', 0.003, false);
  run.end();
}

function text(v: unknown): string {
  if (typeof v !== 'string') throw new Error(`expected a string attribute, got ${JSON.stringify(v)}`);
  return v;
}

function byName(spans: readonly ReceivedSpan[], name: string): ReceivedSpan {
  const s = spans.find((x) => x.name === name);
  if (s === undefined) throw new Error(`no span named ${name}; got ${spans.map((x) => x.name).join(', ')}`);
  return s;
}

describe.each(['http/protobuf', 'http/json'] as const)('export over %s', (protocol) => {
  let receiver: OtlpReceiver;
  let model: FakeModelServer;
  beforeEach(async () => {
    receiver = await startOtlpReceiver();
    model = await startFakeModelServer();
  });
  afterEach(async () => {
    await receiver.close();
    await model.close();
  });

  it('exports run, startup, chat and tool spans with GenAI attributes, and content nowhere when capture is off', async () => {
    const tel = await open(receiver, protocol);
    expect(tel.captureContent).toBe(false);
    await driveRun(tel, model);
    const report = await tel.shutdown();

    const spans = receiver.spans;
    expect(spans.map((s) => s.name).sort()).toEqual(
      [
        'chat claude-test',
        'chat claude-test',
        'execute_tool explodes',
        'execute_tool no_such_tool',
        'execute_tool read_file',
        'invoke_agent helper',
        STARTUP_SPAN,
      ].sort(),
    );
    expect(report.spans).toEqual({ attempted: 7, delivered: 7, firstError: undefined });
    expect(report.summary).toContain('7 of 7 spans delivered');

    const root = byName(spans, 'invoke_agent helper');
    expect(root.parentSpanId).toBe('');
    expect(root.attributes[ATTR_GEN_AI_OPERATION_NAME]).toBe('invoke_agent');
    expect(root.attributes[ATTR_GEN_AI_CONVERSATION_ID]).toBe('conv-42');
    expect(root.resource[ATTR_SERVICE_NAME]).toBe('helper');
    for (const span of spans) {
      expect(span.traceId).toBe(root.traceId);
      if (span !== root) expect(span.parentSpanId).toBe(root.spanId);
    }

    const chat = spans.find((s) => s.name === 'chat claude-test' && s.status.code === 0);
    expect(chat?.kind).toBe(3);
    expect(chat?.attributes[ATTR_GEN_AI_OPERATION_NAME]).toBe('chat');
    expect(chat?.attributes[ATTR_GEN_AI_PROVIDER_NAME]).toBe('anthropic');
    expect(chat?.attributes[ATTR_GEN_AI_REQUEST_MODEL]).toBe('claude-test');
    expect(chat?.attributes[ATTR_GEN_AI_USAGE_INPUT_TOKENS]).toBe(1200);
    expect(chat?.attributes[ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]).toBe(35);
    expect(chat?.events.map((e) => [e.name, e.attributes[ATTR_HTTP_RESPONSE_STATUS_CODE], e.attributes['fisk.http.attempt']])).toEqual([
      [HTTP_ATTEMPT_EVENT, 429, 1],
      [HTTP_ATTEMPT_EVENT, 200, 2],
    ]);
    const failedChat = spans.find((s) => s.name === 'chat claude-test' && s.status.code === 2);
    expect(failedChat?.attributes[ATTR_ERROR_TYPE]).toBe('rate_limited');

    const tool = byName(spans, 'execute_tool read_file');
    expect(tool.attributes[ATTR_GEN_AI_OPERATION_NAME]).toBe('execute_tool');
    expect(tool.attributes[ATTR_GEN_AI_TOOL_NAME]).toBe('read_file');
    expect(tool.attributes[ATTR_GEN_AI_TOOL_CALL_ID]).toBe('call-1');
    expect(tool.attributes['fisk.tool.exit']).toBe('ok');
    expect(tool.status.code).toBe(0);
    const unknown = byName(spans, 'execute_tool no_such_tool');
    expect([unknown.attributes['fisk.tool.exit'], unknown.attributes[ATTR_ERROR_TYPE], unknown.status.code]).toEqual([
      'unknown_tool',
      'unknown_tool',
      2,
    ]);
    const crashed = byName(spans, 'execute_tool explodes');
    expect([crashed.attributes['fisk.tool.exit'], crashed.attributes[ATTR_ERROR_TYPE]]).toEqual(['crashed', 'crashed']);
    // No exception events (they carry stack traces), and no error text.
    for (const span of spans) expect(span.events.filter((e) => e.name === 'exception')).toEqual([]);
    expect(receiver.allBodies().includes('boom')).toBe(false);

    // Capture off: no content attribute and no message text anywhere in any request.
    for (const span of spans) {
      for (const key of [ATTR_GEN_AI_INPUT_MESSAGES, ATTR_GEN_AI_SYSTEM_INSTRUCTIONS, ATTR_GEN_AI_TOOL_CALL_ARGUMENTS])
        expect(span.attributes[key]).toBeUndefined();
    }
    const all = receiver.allBodies();
    for (const secret of [SECRET_PROMPT, SECRET_USER, SECRET_ARGS, SECRET_RESULT, SECRET_SIGNATURE])
      expect(all.includes(secret)).toBe(false);
    expect(receiver.exports.every((e) => !e.gzip && e.encoding === (protocol === 'http/json' ? 'json' : 'protobuf'))).toBe(true);
  });

  it('exports GenAI metrics with explicit seconds and token buckets and no ids on any point', async () => {
    const tel = await open(receiver, protocol);
    await driveRun(tel, model);
    const report = await tel.shutdown();
    expect(report.metricPoints.attempted).toBeGreaterThan(0);
    expect(report.metricPoints.delivered).toBe(report.metricPoints.attempted);

    const tokens = receiver.metrics.find((m) => m.name === METRIC_GEN_AI_CLIENT_TOKEN_USAGE);
    expect(tokens?.type).toBe('histogram');
    expect(tokens?.unit).toBe('{token}');
    const input = tokens?.points.find(
      (p) => p.attributes[ATTR_GEN_AI_TOKEN_TYPE] === 'input' && p.attributes[ATTR_GEN_AI_REQUEST_MODEL] === 'claude-test',
    );
    expect(input?.explicitBounds).toEqual(TOKEN_BUCKETS);
    expect(input?.count).toBe(2);
    expect(input?.sum).toBe(21200);
    // 1200 falls in (1024, 4096], 20000 in (16384, 65536]: buckets 6 and 8 of 15.
    expect(input?.bucketCounts).toEqual([0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0]);
    const output = tokens?.points.find((p) => p.attributes[ATTR_GEN_AI_TOKEN_TYPE] === 'output');
    expect(output?.attributes[ATTR_GEN_AI_PROVIDER_NAME]).toBe('anthropic');

    const duration = receiver.metrics.find((m) => m.name === METRIC_GEN_AI_CLIENT_OPERATION_DURATION);
    expect(duration?.unit).toBe('s');
    expect(duration?.points.length).toBe(2);
    for (const point of duration?.points ?? []) expect(point.explicitBounds).toEqual(SECONDS_BUCKETS);
    expect(duration?.points.some((p) => p.attributes[ATTR_ERROR_TYPE] === 'rate_limited')).toBe(true);

    const degraded = receiver.metrics.find((m) => m.name === METRIC_KNOWLEDGE_DEGRADED);
    expect(degraded?.type).toBe('sum');
    expect(degraded?.points).toEqual([{ attributes: { 'fisk.knowledge.degrade_reason': 'embed_query' }, value: 1 }]);
    const append = receiver.metrics.find((m) => m.name === METRIC_SESSION_APPEND_DURATION);
    expect(append?.points[0]?.explicitBounds).toEqual(SECONDS_BUCKETS);
    expect(append?.points[0]?.bucketCounts?.[0]).toBe(1);

    const forbidden = [ATTR_GEN_AI_CONVERSATION_ID, ATTR_GEN_AI_TOOL_CALL_ID, ATTR_GEN_AI_TOOL_NAME, 'session.id'];
    for (const metric of receiver.metrics)
      for (const point of metric.points) for (const key of forbidden) expect(point.attributes[key]).toBeUndefined();
  });

  it('captures content as deltas, omits signatures, and gzips when capture is on', async () => {
    const tel = await open(receiver, protocol, { capture: true });
    expect(tel.captureContent).toBe(true);
    await driveRun(tel, model);
    await tel.shutdown();

    const spans = receiver.spans;
    expect(byName(spans, STARTUP_SPAN).attributes[ATTR_GEN_AI_SYSTEM_INSTRUCTIONS]).toBe(
      JSON.stringify([{ type: 'text', content: SECRET_PROMPT }]),
    );
    const chats = spans.filter((s) => s.name === 'chat claude-test');
    const first = chats.find((s) => s.status.code === 0);
    const second = chats.find((s) => s.status.code === 2);
    expect(JSON.parse(text(first?.attributes[ATTR_GEN_AI_INPUT_MESSAGES]))).toEqual([
      { role: 'user', parts: [{ type: 'text', content: SECRET_USER }] },
    ]);
    // The second call sends the whole conversation; only what the first did not export goes out.
    const delta = JSON.parse(text(second?.attributes[ATTR_GEN_AI_INPUT_MESSAGES])) as { role: string }[];
    expect(delta.map((m) => m.role)).toEqual(['assistant', 'tool']);
    expect(byName(spans, 'execute_tool read_file').attributes[ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]).toBe(JSON.stringify({ path: SECRET_ARGS }));
    const all = receiver.allBodies();
    expect(all.includes(SECRET_USER)).toBe(true);
    expect(all.includes(SECRET_SIGNATURE)).toBe(false);
    expect(all.includes('[omitted]')).toBe(true);
    expect(receiver.exports.length).toBeGreaterThan(0);
    expect(receiver.exports.every((e) => e.gzip)).toBe(true);
  });

  it('reports spans the collector refused as not delivered', async () => {
    receiver.respondWith(400);
    const tel = await open(receiver, protocol);
    const run = tel.startRun({ agentName: 'helper' });
    run.startup().end();
    run.end('crashed');
    const report = await tel.shutdown();
    expect(report.spans.attempted).toBe(2);
    expect(report.spans.delivered).toBe(0);
    expect(report.spans.firstError).toBeDefined();
    expect(report.summary).toMatch(/^0 of 2 spans delivered \(2 spans dropped; first error: /);
  });
});

describe('shutdown', () => {
  it('gives up on a collector that never answers within its own flush timeout and says so', async () => {
    const receiver = await startOtlpReceiver();
    try {
      receiver.hang();
      const tel = await open(receiver, 'http/protobuf');
      tel.startRun({ agentName: 'helper' }).end();
      const report = await tel.shutdown(200);
      expect(report.timedOut).toBe(true);
      expect(report.spans.delivered).toBe(0);
      expect(report.summary).toContain('ran out of time');
      // A second call returns the same report rather than flushing again.
      expect(await tel.shutdown()).toBe(report);
    } finally {
      await receiver.close();
    }
  });
});

describe('shutdown with no collector running', () => {
  it('says at once that nothing accepts connections there, instead of waiting out the flush', async () => {
    const port = await freePort();
    const tel = await open({ url: `http://127.0.0.1:${port}` } as OtlpReceiver, 'http/protobuf');
    tel.startRun({ agentName: 'helper' }).end();
    // a deadline far past the test's own: only the refused connection can end the wait in time
    const report = await tel.shutdown(120_000);
    expect(report.timedOut).toBe(false);
    expect(report.spans.delivered).toBe(0);
    expect(report.unreachable).toContain(`the collector at http://127.0.0.1:${port} cannot be reached`);
    expect(report.summary).toMatch(
      new RegExp(
        `^0 of 1 spans delivered.*\\(the collector at http://127\\.0\\.0\\.1:${port} cannot be reached \\(connect ECONNREFUSED 127\\.0\\.0\\.1:${port}\\); is it running\\?\\)$`,
      ),
    );
  }, 30_000);
});

describe('shutdown with a collector that takes the export at once', () => {
  it('opens no connection beyond the export: the address is probed only when a flush lingers', async () => {
    const accepted: { readonly port: number | undefined; spoke: boolean }[] = [];
    const collector = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end());
    });
    collector.on('connection', (socket: Socket) => {
      const seen = { port: socket.remotePort, spoke: false };
      accepted.push(seen);
      socket.once('data', () => (seen.spoke = true));
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    const { port } = collector.address() as AddressInfo;
    try {
      const tel = await open({ url: `http://127.0.0.1:${port}` } as OtlpReceiver, 'http/protobuf');
      tel.startRun({ agentName: 'helper' }).end();
      // a wide margin before the probe, so a loaded machine's slow flush cannot count as lingering
      const report = await tel.shutdown(5_000, 3_000);
      expect(report.spans.delivered).toBe(1);
      // a connection opened now is accepted after any the shutdown opened (the accept queue is in
      // order): once the collector has it, every earlier connection has been seen
      const check = rawConnect({ host: '127.0.0.1', port });
      await new Promise<void>((resolve) => check.once('connect', () => resolve()));
      const mine = check.localPort;
      await eventually(() => accepted.some((c) => c.port === mine), 'the collector to accept the check connection');
      check.destroy();
      const before = accepted.slice(
        0,
        accepted.findIndex((c) => c.port === mine),
      );
      expect(before.length).toBeGreaterThan(0);
      expect(before.filter((c) => !c.spoke)).toEqual([]);
    } finally {
      collector.closeAllConnections();
      await new Promise((r) => collector.close(r));
    }
  });
});

describe('sampling', () => {
  let receiver: OtlpReceiver;
  beforeEach(async () => {
    receiver = await startOtlpReceiver();
  });
  afterEach(async () => {
    await receiver.close();
  });

  const remoteTrace = '4bf92f3577b34da6a3ce929d0e0e4736';

  it('records nothing of its own at an explicit ratio of 0', async () => {
    const tel = await open(receiver, 'http/protobuf', { ratio: 0 });
    const run = tel.startRun({ agentName: 'helper' });
    expect(run.traceparent()).toBeUndefined();
    run.end();
    const report = await tel.shutdown();
    expect(receiver.spans).toEqual([]);
    expect(report.spans.attempted).toBe(0);
  });

  it('follows a remote parent that claims sampled, adopting its trace', async () => {
    const tel = await open(receiver, 'http/protobuf', { ratio: 0 });
    const run = tel.startRun({ agentName: 'helper', traceparent: `00-${remoteTrace}-00f067aa0ba902b7-01` });
    expect(run.traceparent()).toMatch(new RegExp(`^00-${remoteTrace}-[0-9a-f]{16}-01$`));
    run.end();
    await tel.shutdown();
    expect(receiver.spans.map((s) => [s.traceId, s.parentSpanId])).toEqual([[remoteTrace, '00f067aa0ba902b7']]);
  });

  it('does not let a remote parent claiming not sampled switch recording off', async () => {
    const tel = await open(receiver, 'http/json', { ratio: 1 });
    const run = tel.startRun({ agentName: 'helper', traceparent: `00-${remoteTrace}-00f067aa0ba902b7-00` });
    run.end();
    await tel.shutdown();
    expect(receiver.spans.map((s) => s.traceId)).toEqual([remoteTrace]);
  });
});

describe('disabled telemetry', () => {
  it('hands out working spans that send nothing', async () => {
    const receiver = await startOtlpReceiver();
    try {
      const settings = resolveTelemetrySettings({
        config: { enabled: true, endpoint: receiver.url, captureContent: true, noMetrics: false },
        identity: 'helper',
        disabledBy: '--no-telemetry',
        env: {},
      });
      const tel = await startTelemetry(settings);
      expect(tel.enabled).toBe(false);
      expect(tel.captureContent).toBe(false);
      const run = tel.startRun({ agentName: 'helper' });
      let built = false;
      const chat = run.chat({ provider: 'openai', model: 'm' });
      chat.recordInput(() => {
        built = true;
        return conversation;
      });
      chat.end();
      expect(await run.toolCall('t', 'builtin', () => Promise.resolve(5))).toBe(5);
      tel.recordDegradedKnowledge('vector_search');
      run.end();
      const report = await tel.shutdown();
      expect(built).toBe(false);
      expect(report.summary).toBe('telemetry off');
      expect(receiver.exports).toEqual([]);
    } finally {
      await receiver.close();
    }
  });
});
