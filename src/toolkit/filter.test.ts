import { describe, expect, it } from 'vitest';
import { ToolkitError } from './errors.js';
import { applyFilters, compileFilters } from './filter.js';

const none = { tools: [], tags: [] };
const tools = [
  { name: 'stream_ls', tags: ['ai:read_only'] },
  { name: 'stream_rm', tags: ['ai:destructive'] },
  { name: 'server_ping', tags: [] },
  { name: 'secret_dump', tags: ['ai:deny', 'ai:read_only'] },
];

function kept(include: { tools: string[]; tags: string[] }, exclude: { tools: string[]; tags: string[] }): string[] {
  return applyFilters(tools, compileFilters(include, exclude), 'application').kept.map((t) => t.name);
}

describe('applyFilters', () => {
  it('keeps everything but ai:deny when no filter is set', () => {
    const r = applyFilters(tools, compileFilters(none, none), 'application');
    expect(r.kept.map((t) => t.name)).toEqual(['stream_ls', 'stream_rm', 'server_ping']);
    expect(r.filtered).toEqual([{ name: 'secret_dump', source: 'application', reason: 'denied', detail: 'tagged ai:deny' }]);
  });
  it('never adds an ai:deny tool back through include', () => {
    expect(kept({ tools: ['secret'], tags: ['ai:read_only'] }, none)).toEqual(['stream_ls']);
  });
  it('includes by unanchored regex or by tag, and "" matches untagged tools', () => {
    expect(kept({ tools: ['^stream_l'], tags: [] }, none)).toEqual(['stream_ls']);
    expect(kept({ tools: ['_r'], tags: [''] }, none)).toEqual(['stream_rm', 'server_ping']);
  });
  it('lets exclude win over include and records the reason', () => {
    const r = applyFilters(tools, compileFilters({ tools: ['stream'], tags: [] }, { tools: [], tags: ['ai:destructive'] }), 'application');
    expect(r.kept.map((t) => t.name)).toEqual(['stream_ls']);
    expect(r.filtered.map((f) => [f.name, f.reason])).toEqual([
      ['stream_rm', 'excluded'],
      ['server_ping', 'not_included'],
      ['secret_dump', 'denied'],
    ]);
    expect(kept(none, { tools: [], tags: [''] })).toEqual(['stream_ls', 'stream_rm']);
  });
  it('refuses an invalid pattern naming the key', () => {
    expect(() => compileFilters(none, { tools: ['('], tags: [] })).toThrow(ToolkitError);
    expect(() => compileFilters(none, { tools: ['('], tags: [] }, 'expose.agent.tools.')).toThrow(
      /expose\.agent\.tools\.exclude\.tools: "\("/,
    );
  });
});
