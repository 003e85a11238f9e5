import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startOtlpReceiver } from '../agenttest/index.js';
import type { OtlpReceiver } from '../agenttest/otlp-receiver.js';
import { ScriptedProvider, scriptedResponse } from '../agenttest/scripted-provider.js';
import { parseConfigForMode } from '../config/index.js';
import { LlmError } from '../llm/errors.js';
import type { Request } from '../llm/provider.js';
import type { AnsweredResult, InvokeResult } from '../toolkit/invoke/index.js';
import { capturedMessages, HostTelemetry, modelErrorClass, toolExitOf } from './telemetry.js';

let receiver: OtlpReceiver;
beforeEach(async () => {
  receiver = await startOtlpReceiver();
});
afterEach(async () => {
  await receiver.close();
});

const answered = (over: Partial<AnsweredResult>): InvokeResult => ({
  kind: 'answered',
  content: '',
  isError: false,
  output: '',
  toolKind: 'application',
  ...over,
});

describe('tool exits', () => {
  it('names every way a call through the pipeline ends', () => {
    expect(toolExitOf(answered({}))).toBe('ok');
    expect(toolExitOf(answered({ exec: { command: 'x', exitCode: 2, truncated: false } }))).toBe('failed');
    expect(toolExitOf(answered({ isError: true }))).toBe('failed');
    expect(toolExitOf(answered({ isError: true, timedOut: true }))).toBe('timeout');
    expect(toolExitOf(answered({ refused: 'unknown_tool' }))).toBe('unknown_tool');
    expect(toolExitOf(answered({ refused: 'not_loaded' }))).toBe('unknown_tool');
    expect(toolExitOf(answered({ refused: 'invalid_arguments' }))).toBe('invalid_arguments');
    expect(toolExitOf(answered({ refused: 'denied' }))).toBe('denied');
    expect(toolExitOf(answered({ refused: 'ungateable' }))).toBe('denied');
    expect(toolExitOf({ kind: 'deferred', reason: 'later', toolKind: 'builtin', toolName: 'ask' })).toBe('ok');
    expect(toolExitOf({ kind: 'end_run', status: 'aborted', code: 'aborted', message: 'cancelled' })).toBe('cancelled');
    expect(toolExitOf({ kind: 'end_run', status: 'error', code: 'hook', message: 'bad rewrite' })).toBe('crashed');
  });

  it('classifies model failures from their code, never their text', () => {
    expect(modelErrorClass(new LlmError('rate_limited', 'slow down'))).toBe('rate_limited');
    expect(modelErrorClass(new LlmError('network', 'refused'))).toBe('unavailable');
    expect(modelErrorClass(new LlmError('bad_request', 'no'))).toBe('invalid_request');
    expect(modelErrorClass(new Error('something'))).toBe('_OTHER');
  });
});

describe('captured messages', () => {
  it('puts tool results in messages of role tool and keeps the rest in order', () => {
    const out = capturedMessages([
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'ls', input: '{"a":1}' }] },
      { role: 'user', content: [{ type: 'tool_result', toolUseId: 't1', content: 'files' }] },
    ]);
    expect(out).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'hi' }] },
      { role: 'assistant', parts: [{ type: 'tool_call', id: 't1', name: 'ls', arguments: { a: 1 } }] },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 't1', response: 'files' }] },
    ]);
  });

  it('never exports a thinking signature or a provider block, even with capture on', async () => {
    const config = parseConfigForMode(
      { text: `identity: cap\ntelemetry:\n  enabled: true\n  endpoint: ${receiver.url}\n  capture_content: true\n` },
      'info',
    );
    const telemetry = await HostTelemetry.open(config, { env: {} });
    const provider = new ScriptedProvider([
      scriptedResponse([
        { type: 'thinking', text: 'pondering', signature: new TextEncoder().encode('SIGNATURE-BYTES') },
        { type: 'provider', kind: 'server_tool', raw: '{"secret":"RAW-PROVIDER-JSON"}' },
        { type: 'text', text: 'done' },
      ]),
    ]);
    const run = telemetry.run({ agentName: 'cap' });
    const request: Request = {
      model: 'm',
      system: [],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'go' }] }],
      tools: [],
      maxOutputTokens: 100,
      thinking: 'off',
      interactive: false,
      noPromptCache: false,
    };
    await run.modelCall(provider)(request, () => provider.call(request, new AbortController().signal));
    run.fail(new Error('stopped by the test'));
    expect(await telemetry.finish()).toMatch(/3 of 3 spans delivered/);
    const bodies = receiver.allBodies().toString('latin1');
    expect(bodies).toContain('pondering');
    expect(bodies).toContain('[omitted]');
    expect(bodies).not.toContain('SIGNATURE-BYTES');
    expect(bodies).not.toContain('RAW-PROVIDER-JSON');
    expect(bodies).not.toContain('stopped by the test');
    const root = receiver.spans.find((s) => s.name === 'invoke_agent cap');
    expect(root?.attributes['error.type']).toBe('_OTHER');
  });
});

describe('knowledge fallback counter', () => {
  it('counts each fallback by the step that failed', async () => {
    const config = parseConfigForMode({ text: `identity: kn\ntelemetry:\n  enabled: true\n  endpoint: ${receiver.url}\n` }, 'info');
    const telemetry = await HostTelemetry.open(config, { env: {} });
    telemetry.knowledgeDegraded('vector_search');
    telemetry.knowledgeDegraded('vector_search');
    telemetry.knowledgeDegraded('embed_query');
    await telemetry.finish();
    const points = receiver.metrics.filter((m) => m.name === 'fisk.knowledge.degraded').flatMap((m) => m.points);
    expect(points.find((p) => p.attributes['fisk.knowledge.degrade_reason'] === 'vector_search')?.value).toBe(2);
    expect(points.find((p) => p.attributes['fisk.knowledge.degrade_reason'] === 'embed_query')?.value).toBe(1);
  });
});

describe('served call wrappers', () => {
  it('wraps served calls in a tool span only while telemetry is exported', async () => {
    const on = await HostTelemetry.open(
      parseConfigForMode({ text: `identity: sv\ntelemetry:\n  enabled: true\n  endpoint: ${receiver.url}\n` }, 'info'),
      { env: {} },
    );
    const off = await HostTelemetry.open(parseConfigForMode({ text: 'identity: sv\n' }, 'info'), { env: {} });
    expect(on.servedToolWrappers()).toHaveLength(1);
    expect(off.servedToolWrappers()).toEqual([]);
    await on.finish();
    await off.finish();
  });
});
