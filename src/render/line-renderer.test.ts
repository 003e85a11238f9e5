import { describe, expect, it } from 'vitest';
import { renderEvent, resultLines } from './line-renderer.js';
import { formatAnswer, shouldRenderMarkdown } from './answer.js';
import { renderMarkdown } from './markdown.js';

const plain = { toolOutput: false, verbose: false };
const withOutput = { toolOutput: true, verbose: false };

describe('line rendering', () => {
  it('renders a tool call with sorted arguments and control characters shown as escapes, never raw', () => {
    const lines = renderEvent(
      { type: 'tool_call', id: '1', name: 'deploy', input: { zone: 'b', app: 'web\u001b]0;owned\u0007', n: 2 } },
      plain,
    );
    expect(lines).toEqual(['-> deploy app="web\\u001b]0;owned\\u0007" n=2 zone=b']);
    // eslint-disable-next-line no-control-regex -- the point is that no raw control character is printed
    expect(lines.join('')).not.toMatch(/[\u0000-\u001f]/);
  });

  it('keeps self-rendered calls off the line unless verbose', () => {
    const ev = { type: 'tool_call' as const, id: '1', name: 'ask_human_confirm', input: {}, presentation: 'self-rendered' as const };
    expect(renderEvent(ev, plain)).toEqual([]);
    expect(renderEvent(ev, { toolOutput: false, verbose: true })).toEqual(['-> ask_human_confirm']);
  });

  it('drops tool results without --tool-output and shows them with it', () => {
    const ev = { type: 'tool_result' as const, call_id: '1', is_error: false, output: 'line one\nline two\n' };
    expect(renderEvent(ev, plain)).toEqual([]);
    expect(renderEvent(ev, withOutput)).toEqual(['<- line one', '   line two']);
  });

  it('unwraps a command result, keeps a non-zero exit and says a silent success out loud', () => {
    expect(resultLines('', false, { command: 'stream ls', exit_code: 0, truncated: false })).toEqual(['<- ok (no output)']);
    expect(resultLines('boom', false, { command: 'fail', exit_code: 3, truncated: false })).toEqual(['<- exit 3: boom']);
    expect(resultLines('x', false, { command: 'flood', exit_code: 0, truncated: true })).toEqual(['<- x', '   (output truncated)']);
  });

  it('renders warnings, thinking and crashes', () => {
    expect(renderEvent({ type: 'warning', text: 'careful\nnow' }, plain)).toEqual(['warning: careful now']);
    expect(renderEvent({ type: 'thinking', text: 'hmm' }, plain)).toEqual(['thinking: hmm']);
    expect(renderEvent({ type: 'crash', message: 'bad', stack: 'Error: bad\n  at x' }, plain)).toEqual([
      '',
      'panic: bad',
      '',
      'Error: bad',
      '  at x',
    ]);
  });

  it('never renders the final answer on the event surface (it goes to stdout)', () => {
    expect(renderEvent({ type: 'text', text: 'answer', final: true }, { toolOutput: true, verbose: true })).toEqual([]);
  });
});

describe('the answer', () => {
  it('is raw when piped, with NO_COLOR, or with --no-color', () => {
    expect(shouldRenderMarkdown(false, false, {})).toBe(false);
    expect(shouldRenderMarkdown(true, false, { NO_COLOR: '1' })).toBe(false);
    expect(shouldRenderMarkdown(true, true, {})).toBe(false);
    expect(shouldRenderMarkdown(true, false, {})).toBe(true);
    expect(formatAnswer('# Title\n\n**bold**', undefined)).toBe('# Title\n\n**bold**\n');
  });

  it("is rendered as markdown on a terminal, and stripped of the model's own escape sequences", () => {
    const out = formatAnswer('Some **bold** text\u001b[2J', renderMarkdown);
    expect(out).not.toContain('**');
    expect(out).not.toContain('\u001b[2J');
    expect(out).toContain('bold');
  });
});
