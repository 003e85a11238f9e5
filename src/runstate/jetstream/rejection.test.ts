import { describe, expect, it } from 'vitest';
import { explainRejection } from './rejection.js';

describe('explainRejection', () => {
  it('adopts our own message after a lost ack, at any sequence', () => {
    expect(explainRejection('n-1', 'n-1', 1)).toBe('adopt');
    expect(explainRejection('n-7', 'n-7', 7)).toBe('adopt');
  });

  it('reads a foreign meta record as a concurrent creator', () => {
    expect(explainRejection('other-1', 'n-1', 1)).toBe('exists');
  });

  it('reads anything else as another writer, failing closed on an empty read', () => {
    expect(explainRejection('other-5', 'n-5', 5)).toBe('locked');
    expect(explainRejection(undefined, 'n-5', 5)).toBe('locked');
  });
});
