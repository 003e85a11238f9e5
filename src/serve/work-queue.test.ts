import { describe, expect, it } from 'vitest';
import type { Work, WorkResult } from './channel.js';
import { WorkQueue } from './work-queue.js';

function work(label: string, ended: WorkResult[]): Work {
  return {
    label,
    input: { prompt: label },
    done(result) {
      ended.push(result);
      return Promise.resolve();
    },
  };
}

describe('WorkQueue', () => {
  it('hands work to a waiting worker, keeps it for the next one otherwise, and takes back what no worker took', async () => {
    const q = new WorkQueue();
    const ended: WorkResult[] = [];
    const waiting = q.next(new AbortController().signal);
    const a = work('a', ended);
    expect(q.offer(a)).toBe(true);
    expect(await waiting).toBe(a);
    const b = work('b', ended);
    q.offer(b);
    expect(q.withdraw(a)).toBe(false);
    expect(q.withdraw(b)).toBe(true);
    expect(ended).toEqual([{ kind: 'abandoned' }]);
  });

  it('ends a worker wait on its signal, and on closing abandons what waits and refuses more', async () => {
    const q = new WorkQueue();
    const stop = new AbortController();
    const aborted = q.next(stop.signal);
    stop.abort();
    expect(await aborted).toBeUndefined();
    const ended: WorkResult[] = [];
    const parked = q.next(new AbortController().signal);
    q.close();
    expect(await parked).toBeUndefined();
    expect(q.open).toBe(false);
    expect(q.offer(work('late', ended))).toBe(false);
    expect(await q.next(new AbortController().signal)).toBeUndefined();

    const r = new WorkQueue();
    r.offer(work('kept', ended));
    r.close();
    expect(ended).toEqual([{ kind: 'abandoned' }]);
  });
});
