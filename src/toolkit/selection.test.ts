import { describe, expect, it } from 'vitest';
import { ToolkitError } from './errors.js';
import { selectTools } from './selection.js';
import { fakeTool } from './test-tools.js';
import { PublishedToolSetSource } from './tool-set.js';

const search = { noToolSearch: false, providerToolSearch: true };
const builtin = (name: string) => fakeTool(name, { kind: 'builtin', exposure: { mcp: false, a2a: false } });
const many = (n: number, prefix = 't') => Array.from({ length: n }, (_, i) => fakeTool(`${prefix}${i}`));

describe('selectTools', () => {
  it('lays sources out in the fixed order whatever order they arrive in', () => {
    const s = selectTools({
      sources: [
        { source: 'custom', tools: [fakeTool('c')] },
        { source: 'memory', tools: [builtin('memory_read')] },
        { source: 'application', tools: [fakeTool('app')] },
      ],
      confirmTags: [],
      deferral: search,
    });
    expect(s.toolSet.tools.map((t) => t.name)).toEqual(['app', 'memory_read', 'c']);
    expect(s.toolSet.get('memory_read')?.kind).toBe('builtin');
    expect(s.toolSet.get('nope')).toBeUndefined();
  });
  it('aborts on a collision naming both claimants', () => {
    const run = () =>
      selectTools({
        sources: [
          { source: 'mcp', label: 'files', tools: [fakeTool('read')] },
          { source: 'application', tools: [fakeTool('read')] },
        ],
        confirmTags: [],
        deferral: search,
      });
    expect(run).toThrow(ToolkitError);
    expect(run).toThrow(/"read" is claimed by both the application and MCP server "files"/);
  });
  it('skips and records a later claimant when asked to, for rebuilds mid-run', () => {
    const s = selectTools({
      sources: [
        { source: 'application', tools: [fakeTool('read')] },
        { source: 'mcp', label: 'files', tools: [fakeTool('read'), fakeTool('write')] },
      ],
      confirmTags: [],
      deferral: search,
      collisions: 'skip',
    });
    expect(s.toolSet.tools.map((t) => [t.name, t.kind])).toEqual([
      ['read', 'custom'],
      ['write', 'custom'],
    ]);
    expect(s.toolSet.entry('read')?.source).toBe('application');
    expect(s.filtered).toEqual([
      { name: 'read', source: 'mcp', label: 'files', reason: 'collision', detail: 'the name is already taken by the application' },
    ]);
  });
  it('drops an ai:deny tool from any source that carries tags', () => {
    const s = selectTools({
      sources: [{ source: 'custom', tools: [fakeTool('wipe', { tags: ['ai:deny'] }), fakeTool('keep')] }],
      confirmTags: [],
      deferral: search,
    });
    expect(s.toolSet.tools.map((t) => t.name)).toEqual(['keep']);
    expect(s.filtered).toEqual([{ name: 'wipe', source: 'custom', reason: 'denied', detail: 'tagged ai:deny' }]);
  });
  it('defers only past ten counted tools, never built-ins nor ai:no_defer', () => {
    const ten = selectTools({ sources: [{ source: 'application', tools: many(10) }], confirmTags: [], deferral: search });
    expect(ten.toolSet.definitions().some((d) => d.deferLoading)).toBe(false);
    const s = selectTools({
      sources: [
        { source: 'application', tools: [...many(9), fakeTool('pinned', { deferrable: false })] },
        { source: 'human', tools: [builtin('ask_human_confirm'), builtin('ask_human_input')] },
      ],
      confirmTags: [],
      deferral: search,
    });
    const defs = Object.fromEntries(s.toolSet.definitions().map((d) => [d.name, d.deferLoading]));
    expect(defs['t0']).toBe(true);
    expect(defs['pinned']).toBe(false);
    expect(defs['ask_human_confirm']).toBe(false);
    expect(s.toolSet.entry('t3')?.deferred).toBe(true);
    expect(s.warnings).toEqual([]);
  });
  it('sends every definition and warns when tool search is off or unsupported', () => {
    for (const deferral of [
      { noToolSearch: true, providerToolSearch: true },
      { noToolSearch: false, providerToolSearch: false },
    ]) {
      const s = selectTools({ sources: [{ source: 'application', tools: many(11) }], confirmTags: [], deferral });
      expect(s.toolSet.definitions().every((d) => !d.deferLoading)).toBe(true);
      expect(s.warnings.map((w) => w.code)).toEqual(['tool_search_unavailable']);
    }
  });
  it('warns about unmatched confirm tags, unknown ai: tags and behaviour conflicts', () => {
    const s = selectTools({
      sources: [
        {
          source: 'application',
          tools: [fakeTool('a', { tags: ['ai:readonly', 'impact:rw'] }), fakeTool('b', { tags: ['ai:read_only', 'ai:destructive'] })],
        },
      ],
      confirmTags: ['impact:rw', 'impact:rx'],
      deferral: search,
    });
    expect(s.warnings.map((w) => [w.code, w.tool])).toEqual([
      ['unknown_ai_tag', 'a'],
      ['behavior_conflict', 'b'],
      ['confirm_tag_unmatched', undefined],
    ]);
    expect(s.warnings[2]?.message).toContain('"impact:rx"');
  });
  it('carries every source record of filtered tools into one list', () => {
    const s = selectTools({
      sources: [
        { source: 'application', tools: [], filtered: [{ name: 'x', source: 'application', reason: 'denied', detail: 'tagged ai:deny' }] },
      ],
      confirmTags: [],
      deferral: search,
    });
    expect(s.filtered).toHaveLength(1);
  });
  it('produces an immutable set published whole', () => {
    const s = selectTools({ sources: [{ source: 'application', tools: many(2) }], confirmTags: [], deferral: search });
    expect(Object.isFrozen(s.toolSet)).toBe(true);
    expect(Object.isFrozen(s.toolSet.tools)).toBe(true);
    expect(() => (s.toolSet.tools as unknown[]).push(1)).toThrow();
    const src = new PublishedToolSetSource(s.toolSet);
    const next = selectTools({ sources: [{ source: 'application', tools: many(3) }], confirmTags: [], deferral: search });
    src.publish(next.toolSet, 'server files changed its tools');
    src.advise('note');
    expect(src.current().tools).toHaveLength(3);
    expect(s.toolSet.tools).toHaveLength(2);
    expect(src.drainAdvisories()).toEqual(['server files changed its tools', 'note']);
    expect(src.drainAdvisories()).toEqual([]);
  });
});
