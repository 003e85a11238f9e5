import { describe, expect, it } from 'vitest';
import { eventually } from './eventually.js';

describe('eventually', () => {
  it('resolves with the first truthy answer of the probe', async () => {
    let looks = 0;
    const got = await eventually(() => (++looks >= 3 ? `after ${looks}` : undefined), 'the third look');
    expect(got).toBe('after 3');
  });

  it('waits out a probe that throws until it holds', async () => {
    let looks = 0;
    await eventually(() => {
      looks++;
      expect(looks).toBe(4);
      return true;
    }, 'the fourth look');
    expect(looks).toBe(4);
  });

  it('gives up naming what was awaited and the last answer seen', async () => {
    const state = { phase: 'idle' };
    await expect(eventually(() => state.phase === 'blocked', 'the run to block', { timeoutMs: 30, observed: () => state })).rejects.toThrow(
      "gave up after 30 ms waiting for the run to block; last observed: { phase: 'idle' }",
    );
  });

  it('stops at once when the condition can no longer come about', async () => {
    let looks = 0;
    const exited: { code: number | null } = { code: null };
    const waiting = eventually(
      () => {
        if (++looks === 2) exited.code = 3;
        return false;
      },
      'the banner',
      { stopIf: () => (exited.code !== null ? `the process exited with ${exited.code}` : undefined) },
    );
    await expect(waiting).rejects.toThrow('stopped waiting for the banner: the process exited with 3');
    expect(looks).toBe(2);
  });

  it('reports the last error of a probe that never stopped throwing', async () => {
    await expect(
      eventually(
        () => {
          expect('one answer').toContain('two');
        },
        'the answer to arrive',
        30,
      ),
    ).rejects.toThrow(/waiting for the answer to arrive; last observed: .*expected 'one answer' to contain 'two'/);
  });
});
