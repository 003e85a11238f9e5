import { describe, expect, it } from 'vitest';
import { annotationsOf, behaviorFrom, confirmPolicy } from './approval.js';

describe('confirmPolicy', () => {
  it('auto gates everything the server does not mark readOnlyHint, naming why', () => {
    const auto = confirmPolicy({ mode: 'auto' });
    expect(auto('read', { readOnlyHint: true })).toBeUndefined();
    expect(auto('write', { readOnlyHint: false, destructiveHint: true })).toBe('confirm: auto (destructiveHint)');
    expect(auto('add', { destructiveHint: false })).toBe('confirm: auto (not readOnlyHint)');
    expect(auto('bare', {})).toBe('confirm: auto (not readOnlyHint)');
  });

  it('always and never ignore the annotations', () => {
    expect(confirmPolicy({ mode: 'always' })('read', { readOnlyHint: true })).toBe('confirm: always');
    expect(confirmPolicy({ mode: 'never' })('wipe', { destructiveHint: true })).toBeUndefined();
  });

  it('patterns gate the names that match, naming the first pattern that did', () => {
    const p = confirmPolicy({ mode: 'patterns', patterns: ['^write_', 'delete'] });
    expect(p('write_file', { readOnlyHint: true })).toBe('confirm: ^write_');
    expect(p('bulk_delete_all', {})).toBe('confirm: delete');
    expect(p('read_file', { destructiveHint: true })).toBeUndefined();
  });
});

describe('annotationsOf', () => {
  it('keeps boolean hints only', () => {
    expect(annotationsOf({ annotations: { readOnlyHint: 'true', destructiveHint: false, title: 'x', idempotentHint: true } })).toEqual({
      destructiveHint: false,
      idempotentHint: true,
    });
    expect(annotationsOf({ annotations: null })).toEqual({});
    expect(annotationsOf('no')).toEqual({});
  });

  it('maps the hints to behaviour, leaving what the server did not say unset', () => {
    expect(behaviorFrom({ readOnlyHint: true, openWorldHint: false })).toEqual({
      readOnly: 'true',
      destructive: 'unset',
      idempotent: 'unset',
      openWorld: 'false',
    });
  });
});
