import { describe, expect, it } from 'vitest';
import { fakeTool } from '../test-tools.js';
import { invokeTool } from './invoke.js';
import { NEVER_ABORTED, runTool } from './run-tool.js';
import type { InvokeContext, InvokeResult } from './types.js';

const needsText = fakeTool('say', {
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  validateRequired: false,
  handler: (input) => Promise.resolve({ status: 'completed', output: `said ${String(input['text'])}`, isError: false }),
});

function context(extra: Partial<InvokeContext> = {}): InvokeContext {
  return {
    tools: new Map([['say', needsText]]),
    confirmTags: [],
    approve: () => Promise.resolve({ verdict: 'deny', reason: 'no' }),
    signal: new AbortController().signal,
    ...extra,
  };
}

const outputOf = (r: InvokeResult): string => (r.kind === 'answered' ? r.output : r.kind);

describe('invokeTool', () => {
  it('checks the arguments the caller already decoded, and still refuses a missing required one', async () => {
    const refused = await invokeTool({ id: 'c1', name: 'say', input: '{}', parsedInput: {} }, context());
    expect(refused).toMatchObject({ kind: 'answered', refused: 'invalid_arguments', isError: true });
    expect(outputOf(refused)).toContain('missing required argument "text"');
    const ran = await invokeTool({ id: 'c2', name: 'say', input: '{"text":"hi"}', parsedInput: { text: 'hi' } }, context());
    expect(outputOf(ran)).toBe('said hi');
  });

  it('parses a PreToolUse rewrite afresh rather than trusting the decoded original', async () => {
    const ctx = context({ hooks: { pre: () => Promise.resolve({ action: 'rewrite', name: 'say', input: '{}' }) } });
    const r = await invokeTool({ id: 'c3', name: 'say', input: '{"text":"hi"}', parsedInput: { text: 'hi' } }, ctx);
    expect(r).toMatchObject({ kind: 'answered', refused: 'invalid_arguments' });
  });

  it('fails the call as a rejection when a wrapper throws before returning a promise', async () => {
    const ctx = context({
      wrappers: [
        () => {
          throw new Error('wrapper broke');
        },
      ],
    });
    await expect(invokeTool({ id: 'c4', name: 'say', input: '{"text":"x"}' }, ctx)).rejects.toThrow('wrapper broke');
  });
});

describe('runTool with a signal nothing aborts', () => {
  it('still answers a finished call, a throwing tool and one that outlives its deadline', async () => {
    let seen: AbortSignal | undefined;
    const stuck = fakeTool('stuck', {
      handler: (_input, { signal }) => {
        seen = signal;
        return new Promise(() => undefined);
      },
    });
    const broken = fakeTool('broken', { handler: () => Promise.reject(new Error('tool broke')) });
    expect(await runTool(needsText, '{"text":"hi"}', {}, NEVER_ABORTED, 1000)).toEqual({
      status: 'completed',
      output: 'said hi',
      isError: false,
    });
    expect(await runTool(needsText, '{"text":"hi"}', {}, NEVER_ABORTED, undefined)).toEqual({
      status: 'completed',
      output: 'said hi',
      isError: false,
    });
    expect(await runTool(broken, '{}', {}, NEVER_ABORTED, 1000)).toMatchObject({ status: 'completed', isError: true });
    expect(await runTool(stuck, '{}', {}, NEVER_ABORTED, 30)).toEqual({ status: 'timeout' });
    // the tool's own signal is aborted at the deadline even though the caller's never is
    expect(seen?.aborted).toBe(true);
    expect(NEVER_ABORTED.aborted).toBe(false);
  });
});
