import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../agent/events.js';
import { AnswerStream } from './answer-stream.js';
import { capLine, lineWidthFor, PIPED_LINE_CAP } from '../../render/cap.js';
import { StatusLine } from './status-line.js';
import type { StatusClock } from './status-line.js';

function sink(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer | string, _enc, cb) {
      text += chunk.toString();
      cb();
    },
  });
  return { stream, text: () => text };
}

const usage = { input_tokens: 0, output_tokens: 0 };
const modelCall = (iteration: number): AgentEvent => ({ type: 'status', iteration, phase: 'model_call', usage });

describe('the status line', () => {
  it('redraws in place with the time waited, and erases itself on the next event', () => {
    let now = 1000;
    let tick: (() => void) | undefined;
    let stopped = 0;
    const clock: StatusClock = {
      now: () => now,
      every: (_ms, t) => {
        tick = t;
        return () => stopped++;
      },
    };
    const s = sink();
    const line = new StatusLine(s.stream, clock);
    line.observe(modelCall(2));
    now += 3400;
    tick?.();
    expect(s.text()).toBe('\r\u001b[K| waiting for the model (iteration 3, 0s)\r\u001b[K/ waiting for the model (iteration 3, 3s)');
    line.observe({ type: 'tool_call', id: 't', name: 'x', input: {} });
    expect(s.text().endsWith('\r\u001b[K')).toBe(true);
    expect(stopped).toBe(1);
    const before = s.text();
    line.clear();
    expect(s.text()).toBe(before);
  });
});

describe('the answer stream', () => {
  it('reports the answer shown when the last turn streamed it, across text blocks', () => {
    const s = sink();
    const a = new AnswerStream(s.stream);
    a.observe(modelCall(0));
    a.observe({ type: 'text_fragment', text: 'Let me look.' });
    a.observe({ type: 'text', text: 'Let me look.', final: false });
    a.observe(modelCall(1));
    a.observe({ type: 'text_fragment', text: 'First.' });
    a.observe({ type: 'text_fragment', text: 'Second.' });
    expect(a.finish('First.\nSecond.')).toBe(true);
    expect(s.text()).toBe('Let me look.\nFirst.Second.\n');
  });

  it('asks for the answer to be printed when the stream did not carry it', () => {
    const s = sink();
    const a = new AnswerStream(s.stream);
    a.observe(modelCall(0));
    a.observe({ type: 'text_fragment', text: 'partial' });
    expect(a.finish('something else')).toBe(false);
    expect(s.text()).toBe('partial\n');
  });
});

describe('display caps', () => {
  it('cuts to the width with a marker that fits, and leaves short lines alone', () => {
    expect(capLine('short', 60)).toBe('short');
    const cut = capLine('x'.repeat(500), 60);
    expect(Array.from(cut)).toHaveLength(60);
    expect(cut).toMatch(/^x+ … \(\+\d+ chars\)$/);
    expect(Number(/\+(\d+)/.exec(cut)?.[1]) + cut.indexOf(' …')).toBe(500);
  });

  it('uses the terminal width at a terminal and a fixed cap elsewhere', () => {
    expect(lineWidthFor({ isTTY: true, columns: 120 })).toBe(120);
    expect(lineWidthFor({ isTTY: true })).toBe(80);
    expect(lineWidthFor({})).toBe(PIPED_LINE_CAP);
  });
});
