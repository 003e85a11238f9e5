import { PassThrough } from 'node:stream';
import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LinePrompter, parseApproval } from './prompter-line.js';

function terminal(isTTY = true): { input: PassThrough & { isTTY?: boolean }; output: PassThrough; shown: () => string } {
  const input = new PassThrough() as PassThrough & { isTTY?: boolean };
  input.isTTY = isTTY;
  const output = new PassThrough();
  let shown = '';
  output.on('data', (c: Buffer) => (shown += c.toString()));
  return { input, output, shown: () => shown };
}

const never = new AbortController().signal;
const open: LinePrompter[] = [];
afterEach(() => {
  for (const p of open.splice(0)) p.close();
});
function prompter(t: ReturnType<typeof terminal>): LinePrompter {
  const p = new LinePrompter(t);
  open.push(p);
  return p;
}

describe('the line prompter', () => {
  it('lists No first, so Enter declines', async () => {
    const t = terminal();
    const p = prompter(t);
    const decision = p.approve({ tool: 'stream_rm', commandLine: 'stream rm --force -- orders', trigger: 'impact:rw' }, never);
    t.input.write('\n');
    expect(await decision).toBe('decline');
    const shown = t.shown();
    expect(shown.indexOf('1) No')).toBeGreaterThan(-1);
    expect(shown.indexOf('1) No')).toBeLessThan(shown.indexOf('2) Yes'));
    expect(shown).toContain('stream rm --force -- orders');
    expect(shown).toContain('impact:rw');
  });

  it('4 declines and asks what the agent should do instead; an empty answer is a plain no', async () => {
    const t = terminal();
    const p = prompter(t);
    const decision = p.approve({ tool: 'stream_rm', commandLine: 'stream rm -- orders', trigger: 'impact:rw' }, never);
    t.input.write('4\n');
    await vi.waitFor(() => expect(t.shown()).toContain('Tell the agent what to do instead'));
    t.input.write('archive it with stream_backup first\n');
    expect(await decision).toEqual({ decision: 'decline', reason: 'archive it with stream_backup first' });
    expect(t.shown()).toContain('4) No, and tell the agent what to do instead');

    const plain = p.approve({ tool: 'stream_rm', commandLine: 'stream rm -- orders', trigger: 'impact:rw' }, never);
    t.input.write('r\n');
    await vi.waitFor(() => expect(t.shown().split('Tell the agent').length).toBe(3));
    t.input.write('\n');
    expect(await plain).toBe('decline');
  });

  it('held questions leave no abort listener behind', async () => {
    const t = terminal();
    const held = new LinePrompter(t, { held: true });
    open.push(held);
    const controller = new AbortController();
    const asked = held.confirm('first?', controller.signal);
    held.release();
    await vi.waitFor(() => expect(t.shown()).toContain('first?'));
    t.input.write('y\n');
    expect(await asked).toBe(true);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('shows the call line as given, spelling out any invisible character left in it', async () => {
    const t = terminal();
    const p = prompter(t);
    const decision = p.approve({ tool: 'x', commandLine: "stream info -- 'TEST   ' prod\u200b\u001b[2J", trigger: 'ai:confirm' }, never);
    t.input.write('\n');
    expect(await decision).toBe('decline');
    expect(t.shown()).toContain("  stream info -- 'TEST   ' prod\\u200b\\u001b[2J\n");
  });

  it('held, shows no question until released, then asks it; closed while held, answers no', async () => {
    const t = terminal();
    const held = new LinePrompter(t, { held: true });
    open.push(held);
    const decision = held.approve({ tool: 't', commandLine: 'purge -- orders', trigger: 'ai:confirm' }, never);
    await new Promise((r) => setImmediate(r));
    expect(t.shown()).toBe('');
    held.release();
    await new Promise((r) => setImmediate(r));
    expect(t.shown()).toContain('purge -- orders');
    t.input.write('y\n');
    expect(await decision).toBe('once');

    const other = terminal();
    const closing = new LinePrompter(other, { held: true });
    const unasked = closing.confirm('Proceed?', never);
    closing.close();
    expect(await unasked).toBe(false);
    expect(other.shown()).toBe('');
  });

  it('maps 2 to once and 3 to always', async () => {
    const t = terminal();
    const p = prompter(t);
    const req = { tool: 't', commandLine: 't', trigger: 'ai:confirm' };
    const first = p.approve(req, never);
    t.input.write('2\n');
    expect(await first).toBe('once');
    const second = p.approve(req, never);
    t.input.write('3\n');
    expect(await second).toBe('always');
  });

  it('understands the words people type, in any case, and the numbers', () => {
    for (const a of ['', '1', 'n', 'no', ' NO ']) expect(parseApproval(a)).toBe('decline');
    for (const a of ['2', 'y', 'yes', 'once', 'Y']) expect(parseApproval(a)).toBe('once');
    for (const a of ['3', 'a', 'always', 'Always']) expect(parseApproval(a)).toBe('always');
    for (const a of ['4', 'r', 'reason', 'R']) expect(parseApproval(a)).toBe('decline_with_reason');
    for (const a of ['5', 'sure', 'yess', 'constructor', 'toString', '0']) expect(parseApproval(a)).toBeUndefined();
  });

  it('asks again after an answer it does not understand, instead of declining', async () => {
    const t = terminal();
    const p = prompter(t);
    const decision = p.approve({ tool: 't', commandLine: 't', trigger: 'ai:confirm' }, never);
    t.input.write('sure\n');
    await new Promise((r) => setImmediate(r));
    expect(t.shown()).toContain('Please answer 1, 2, 3 or 4');
    t.input.write('yes\n');
    expect(await decision).toBe('once');
  });

  it('says it will not ask again after always', async () => {
    const t = terminal();
    const p = prompter(t);
    const decision = p.approve({ tool: 'stream_rm', commandLine: 'stream rm', trigger: 'ai:confirm' }, never);
    t.input.write('a\n');
    expect(await decision).toBe('always');
    expect(t.shown()).toContain('fisk will not ask again for it');
    expect(t.shown()).toContain('Allowed stream_rm for the rest of this run');
  });

  it('a re-asked question still declines at end of input', async () => {
    const t = terminal();
    const p = prompter(t);
    const decision = p.approve({ tool: 't', commandLine: 't', trigger: 'x' }, never);
    t.input.write('maybe\n');
    t.input.end();
    expect(await decision).toBe('decline');
  });

  it('answers no at end of input', async () => {
    const t = terminal();
    const p = prompter(t);
    const answer = p.confirm('Proceed?', never);
    t.input.end();
    expect(await answer).toBe(false);
    expect(p.canPrompt()).toBe(false);
  });

  it('answers no when the run is interrupted mid-question', async () => {
    const t = terminal();
    const p = prompter(t);
    const ac = new AbortController();
    const answer = p.approve({ tool: 't', commandLine: 't', trigger: 'x' }, ac.signal);
    ac.abort();
    expect(await answer).toBe('decline');
  });

  it('does not prompt when stdin is not a terminal', async () => {
    const t = terminal(false);
    const p = prompter(t);
    expect(p.canPrompt()).toBe(false);
    expect(await p.confirm('Proceed?', never)).toBe(false);
    expect(t.shown()).toBe('');
  });

  it('select: Enter is none, a number picks, out of range is none', async () => {
    const t = terminal();
    const p = prompter(t);
    const a = p.select('Colour?', ['red', 'blue'], never);
    t.input.write('\n');
    expect(await a).toBeNull();
    const b = p.select('Colour?', ['red', 'blue'], never);
    t.input.write('2\n');
    expect(await b).toBe('blue');
    const c = p.select('Colour?', ['red', 'blue'], never);
    t.input.write('9\n');
    expect(await c).toBeNull();
  });

  it('input: empty is null; confirm needs an explicit yes; questions are stripped of escapes', async () => {
    const t = terminal();
    const p = prompter(t);
    const a = p.input('Name?\u001b[2J', never);
    t.input.write('\n');
    expect(await a).toBeNull();
    const b = p.input('Name?', never);
    t.input.write('Ada\n');
    expect(await b).toBe('Ada');
    const c = p.confirm('Sure?', never);
    t.input.write('yes\n');
    expect(await c).toBe(true);
    const d = p.confirm('Sure?', never);
    t.input.write('sure\n');
    expect(await d).toBe(false);
    expect(t.shown()).not.toContain('\u001b[2J');
  });
});
