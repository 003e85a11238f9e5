import { describe, expect, it } from 'vitest';
import { LlmError } from '../llm/errors.js';
import type { Request } from '../llm/provider.js';
import { hangingStep, ScriptedProvider, textResponse, toolUseResponse } from './scripted-provider.js';

const request = (text: string): Request => ({
  model: 'm',
  system: [{ text: 'sys' }],
  messages: [{ role: 'user', content: [{ type: 'text', text }] }],
  tools: [],
  maxOutputTokens: 100,
  thinking: 'unset',
  interactive: false,
  noPromptCache: false,
});

describe('ScriptedProvider', () => {
  it('answers in order and records every request', async () => {
    const p = new ScriptedProvider([toolUseResponse([{ name: 'echo', input: { text: 'hi' }, id: 'c1' }]), textResponse('done')]);
    const first = await p.call(request('one'), new AbortController().signal);
    expect(first.stopReason.unified).toBe('tool_use');
    expect(first.message.content[0]).toEqual({ type: 'tool_use', id: 'c1', name: 'echo', input: '{"text":"hi"}' });
    const second = await p.call(request('two'), new AbortController().signal);
    expect(second.message.content).toEqual([{ type: 'text', text: 'done' }]);
    expect(p.requests.map((r) => r.messages[0]?.content[0])).toEqual([
      { type: 'text', text: 'one' },
      { type: 'text', text: 'two' },
    ]);
    expect(p.remaining).toBe(0);
  });

  it('passes raw JSON text input through verbatim', async () => {
    const p = new ScriptedProvider([toolUseResponse([{ name: 't', input: '{ "n": 12345678901234567890 }' }])]);
    const r = await p.call(request('x'), new AbortController().signal);
    expect(r.message.content[0]).toMatchObject({ input: '{ "n": 12345678901234567890 }' });
  });

  it('keeps an unknown stop reason beside the unified one', async () => {
    const p = new ScriptedProvider([textResponse('x', { stopReason: 'model_context_window_exceeded' })]);
    const r = await p.call(request('x'), new AbortController().signal);
    expect(r.stopReason).toEqual({ unified: 'other', raw: 'model_context_window_exceeded' });
  });

  it('throws scripted errors and fails loudly when the script runs out', async () => {
    const p = new ScriptedProvider([new LlmError('rate_limited', 'slow down', { status: 429 })]);
    await expect(p.call(request('x'), new AbortController().signal)).rejects.toMatchObject({ code: 'rate_limited' });
    await expect(p.call(request('y'), new AbortController().signal)).rejects.toThrow(/no answer queued for call 2/);
  });

  it('honours the caller signal on a hanging call', async () => {
    const p = new ScriptedProvider([hangingStep()]);
    const ac = new AbortController();
    const pending = p.call(request('x'), ac.signal);
    ac.abort();
    await expect(pending).rejects.toMatchObject({ name: 'LlmError', code: 'aborted' });
  });

  it('enforces its per-call timeout', async () => {
    const p = new ScriptedProvider([hangingStep()], { callTimeoutMs: 20 });
    await expect(p.call(request('x'), new AbortController().signal)).rejects.toMatchObject({ code: 'timeout' });
  });

  it('refuses a call whose signal is already aborted without consuming a step', async () => {
    const p = new ScriptedProvider([textResponse('kept')]);
    const ac = new AbortController();
    ac.abort();
    await expect(p.call(request('x'), ac.signal)).rejects.toMatchObject({ code: 'aborted' });
  });
});
