import { describe, expect, it } from 'vitest';
import { compileFilters } from '../../toolkit/filter.js';
import { isValidToolName } from '../../toolkit/names.js';
import { hashedName, MAX_MODEL_NAME, modelSafeName, prefixedName } from './naming.js';
import { buildTools } from './tools.js';

const obj = { type: 'object', properties: {} };
const NONE = compileFilters({ tools: [], tags: [] }, { tools: [], tags: [] }, 'mcp_clients[0].');

describe("model names for a server's tools", () => {
  it('keeps a valid name, and rewrites one the model APIs refuse into one they accept', () => {
    expect(modelSafeName('read_file')).toBe('read_file');
    expect(modelSafeName('read.file')).toBe('read_file');
    expect(modelSafeName('say hi!')).toBe('say_hi_');
    const long = `long_${'x'.repeat(70)}`;
    expect(modelSafeName(long)).toHaveLength(MAX_MODEL_NAME);
    expect(modelSafeName(long)).toBe(modelSafeName(long));
    // two long names alike for the first 55 characters still get distinct names
    expect(modelSafeName(`${long}a`)).not.toBe(modelSafeName(`${long}b`));
    for (const n of [long, 'read.file', 'é', '\u0007']) expect(isValidToolName(modelSafeName(n))).toBe(true);
    expect(isValidToolName(hashedName('read.file'))).toBe(true);
    expect(prefixedName('gh', 'issue.create')).toBe('gh_issue.create');
    expect(prefixedName(undefined, 'issue.create')).toBe('issue.create');
  });

  it("names tools <prefix>_<tool>, calls them by the server's name, and gives the same names whatever the listing order", () => {
    const listing = [
      { name: 'a.b', description: 'dotted', inputSchema: obj },
      { name: 'a b', description: 'spaced', inputSchema: obj },
      { name: 'a_b', description: 'plain', inputSchema: obj },
    ];
    const naming = { prefix: 'p', key: 'mcp_clients[0]' };
    const forward = buildTools('s', listing, NONE, undefined, undefined, naming);
    const backward = buildTools('s', [...listing].reverse(), NONE, undefined, undefined, naming);
    const pairs = (b: typeof forward): string[] => b.tools.map((t) => `${t.origin?.remoteName ?? ''} -> ${t.name}`).sort();
    expect(pairs(forward)).toEqual(pairs(backward));
    expect(forward.problems).toEqual([]);
    const byRemote = new Map(forward.tools.map((t) => [t.origin?.remoteName, t.name]));
    // the valid name keeps its own; both rewrites would land on it, so each ends in a hash of the name it replaces
    expect(byRemote.get('a_b')).toBe('p_a_b');
    expect(byRemote.get('a b')).toMatch(/^p_a_b_[0-9a-f]{8}$/);
    expect(byRemote.get('a.b')).toMatch(/^p_a_b_[0-9a-f]{8}$/);
    expect(byRemote.get('a b')).not.toBe(byRemote.get('a.b'));
  });

  it('describes a tool the server gave no description by its name, and says so', () => {
    const built = buildTools('s', [{ name: 'quiet', inputSchema: obj }], NONE, undefined, undefined, {
      prefix: undefined,
      key: 'mcp_clients[2]',
    });
    expect(built.tools[0]?.description).toBe('quiet');
    expect(built.notes).toHaveLength(1);
    expect(built.notes[0]?.message).toMatch(
      /MCP server "s": tool "quiet" has no description, so the model is told only its name; exclude it with mcp_clients\[2\]\.exclude\.tools/,
    );
  });
});
