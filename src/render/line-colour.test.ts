import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { denialOutput } from '../agent/confirm-gate.js';
import type { AgentEvent } from '../agent/events.js';
import { shouldColorLines, toneFor } from './line-colour.js';
import { LineSurface } from './line-surface.js';

function capture(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer | string, _enc, cb) {
      text += chunk.toString();
      cb();
    },
  });
  return { stream, text: () => text };
}

const call: AgentEvent = { type: 'tool_call', id: '1', name: 'deploy', input: { app: 'web' } };
const warning: AgentEvent = { type: 'warning', text: 'budget nearly spent' };
const refusal: AgentEvent = { type: 'tool_result', call_id: '1', is_error: false, output: denialOutput('the operator declined this call') };
const result: AgentEvent = { type: 'tool_result', call_id: '1', is_error: false, output: 'deployed' };

describe('stderr line colour', () => {
  it('is on only for a terminal without NO_COLOR or --no-color', () => {
    expect(shouldColorLines(true, false, {})).toBe(true);
    expect(shouldColorLines(true, false, { NO_COLOR: '' })).toBe(true);
    expect(shouldColorLines(false, false, {})).toBe(false);
    expect(shouldColorLines(true, false, { NO_COLOR: '1' })).toBe(false);
    expect(shouldColorLines(true, true, {})).toBe(false);
  });

  it('draws tool calls dim, warnings yellow, refusals red and other results plain', () => {
    expect(toneFor(call)).toBe('dim');
    expect(toneFor(warning)).toBe('yellow');
    expect(toneFor(refusal)).toBe('red');
    expect(toneFor(result)).toBe('plain');
    expect(toneFor({ type: 'crash', message: 'x', stack: 'y' })).toBe('red');
    expect(toneFor({ type: 'tool_result', call_id: '1', is_error: false, output: '{"allowed":falsehood' })).toBe('plain');
    // a tool's own answer shaped like a refusal, with more to it, is the tool's answer
    expect(toneFor({ type: 'tool_result', call_id: '1', is_error: false, output: '{"allowed":false,"reason":"x","rows":[]}' })).toBe(
      'plain',
    );
  });

  it('writes escape sequences through a coloured surface and none through a plain one', () => {
    const coloured = capture();
    const s = new LineSurface(coloured.stream, { toolOutput: true, verbose: false }, { color: true });
    for (const e of [call, warning, refusal, result]) s.emit(e);
    const lines = coloured.text().split('\n');
    expect(lines[0]).toBe('\u001b[2m-> deploy app=web\u001b[22m');
    expect(lines[1]).toBe('\u001b[33mwarning: budget nearly spent\u001b[39m');
    expect(lines[2]?.startsWith('\u001b[31m<- ')).toBe(true);
    expect(lines[2]?.endsWith('\u001b[39m')).toBe(true);
    expect(lines[3]).toBe('<- deployed');

    const plain = capture();
    const p = new LineSurface(plain.stream, { toolOutput: true, verbose: false });
    for (const e of [call, warning, refusal, result]) p.emit(e);
    expect(plain.text()).not.toContain('\u001b');
    expect(plain.text().split('\n')[0]).toBe('-> deploy app=web');
  });
});
