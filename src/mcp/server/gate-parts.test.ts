import { describe, expect, it } from 'vitest';
import { newFuncTool } from '../../toolkit/functool/index.js';
import type { Tool } from '../../toolkit/tool.js';
import { toolAnnotations, readableTitle } from './annotations.js';
import { gateAction, isApproval } from './approval.js';
import { Semaphore } from './semaphore.js';

describe('gateAction', () => {
  const cases: [Parameters<typeof gateAction>, string][] = [
    [['auto', false, false], 'run'],
    [['always', false, false], 'run'],
    [['auto', true, true], 'ask'],
    [['auto', true, false], 'run'],
    [['always', true, true], 'ask'],
    [['always', true, false], 'refuse'],
    [['never', true, true], 'run'],
    [['never', true, false], 'run'],
  ];
  for (const [args, want] of cases) {
    it(`${args.join(', ')} -> ${want}`, () => expect(gateAction(...args)).toBe(want));
  }
});

describe('isApproval', () => {
  it('accepts only accept with approve: true', () => {
    expect(isApproval({ action: 'accept', content: { approve: true } })).toBe(true);
    for (const r of [
      null,
      'accept',
      { action: 'accept', content: { approve: 1 } },
      { action: 'decline', content: { approve: true } },
      { action: 'accept', content: null },
      { action: 'accept', content: { approve: 'true' } },
    ]) {
      expect(isApproval(r)).toBe(false);
    }
  });
});

describe('toolAnnotations', () => {
  it('gives a tool that cannot describe itself the conservative hints', () => {
    const bare = { name: 'raw_tool', kind: 'custom', capabilities: { behavior: null } } as unknown as Tool;
    expect(toolAnnotations(bare)).toEqual({
      title: 'Raw tool',
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    });
  });
  it('leaves out hints a tool does not state', () => {
    const t = newFuncTool({
      name: 'x',
      description: 'x',
      inputSchema: { type: 'object' },
      behavior: { readOnly: 'true' },
      handler: () => Promise.reject(new Error('unused')),
    });
    expect(toolAnnotations(t)).toEqual({ title: 'X', readOnlyHint: true });
  });
  it('reads a flat name as words', () => {
    expect(readableTitle('deep_inner-leaf')).toBe('Deep inner leaf');
  });
});

describe('Semaphore', () => {
  it('grants up to capacity, queues the rest in order and hands a freed slot on', async () => {
    const s = new Semaphore(1);
    const first = await s.acquire(new AbortController().signal);
    const order: string[] = [];
    const second = s.acquire(new AbortController().signal).then((r) => (order.push('second'), r));
    const third = s.acquire(new AbortController().signal).then((r) => (order.push('third'), r));
    expect(s.waiting).toBe(2);
    first();
    first(); // idempotent: a double release must not free a second slot
    (await second)();
    (await third)();
    expect(order).toEqual(['second', 'third']);
    expect(s.inUse).toBe(0);
  });
  it('lets a waiter give up without taking a slot', async () => {
    const s = new Semaphore(1);
    const held = await s.acquire(new AbortController().signal);
    const ac = new AbortController();
    const waiting = s.acquire(ac.signal);
    ac.abort(new Error('client went away'));
    await expect(waiting).rejects.toThrow('client went away');
    expect(s.waiting).toBe(0);
    held();
    expect(s.inUse).toBe(0);
  });
  it('refuses a capacity below one', () => {
    expect(() => new Semaphore(0)).toThrow(RangeError);
  });
});
