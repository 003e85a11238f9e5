import { describe, expect, it } from 'vitest';
import { behaviorConflicts, confirmGateFor, modelDescription, resolveBehavior, unknownAiTags } from './tags.js';

describe('confirmGateFor', () => {
  it('prefers ai:confirm as the trigger wherever it sits', () => {
    expect(confirmGateFor(['impact:rw', 'ai:confirm'], ['impact:rw'])).toEqual({ gated: true, trigger: 'ai:confirm' });
  });
  it('names the first of the tool own tags found in the operator list, in the tool order', () => {
    expect(confirmGateFor(['b', 'a'], ['a', 'b'])).toEqual({ gated: true, trigger: 'b' });
  });
  it('is ungated when nothing matches, and matching is exact', () => {
    expect(confirmGateFor(['impact:rw'], ['impact'])).toEqual({ gated: false });
    expect(confirmGateFor([], [])).toEqual({ gated: false });
  });
});

describe('resolveBehavior', () => {
  it('maps behaviour tags onto hints', () => {
    expect(resolveBehavior(['ai:read_only', 'ai:idempotent'])).toEqual({
      readOnly: 'true',
      destructive: 'unset',
      idempotent: 'true',
      openWorld: 'unset',
    });
    expect(resolveBehavior(['ai:additive'])).toMatchObject({ readOnly: 'unset', destructive: 'false' });
  });
  it('drops read_only beside a write tag, whatever the order', () => {
    expect(resolveBehavior(['ai:read_only', 'ai:destructive']).readOnly).toBe('unset');
    expect(resolveBehavior(['ai:additive', 'ai:read_only']).readOnly).toBe('unset');
  });
  it('lets destructive beat additive', () => {
    expect(resolveBehavior(['ai:additive', 'ai:destructive']).destructive).toBe('true');
    expect(resolveBehavior(['ai:destructive', 'ai:additive']).destructive).toBe('true');
    expect(behaviorConflicts(['ai:destructive', 'ai:additive'])).toEqual(['ai:additive']);
  });
  it('states nothing for an untagged tool', () => {
    expect(resolveBehavior([])).toEqual({ readOnly: 'unset', destructive: 'unset', idempotent: 'unset', openWorld: 'unset' });
    expect(behaviorConflicts(['ai:read_only'])).toEqual([]);
  });
});

describe('tags', () => {
  it('reports unknown ai: tags once each and ignores other namespaces', () => {
    expect(unknownAiTags(['ai:readonly', 'team:x', 'ai:confirm', 'ai:readonly', 'ai:private'])).toEqual(['ai:readonly', 'ai:private']);
  });
  it('appends a Tags line to the model description only when there are tags', () => {
    expect(modelDescription('Lists things', [])).toBe('Lists things');
    expect(modelDescription('Lists things', ['ai:read_only', 'x'])).toBe('Lists things\n\nTags: ai:read_only, x');
  });
});
