import { describe, expect, it } from 'vitest';
import { MAX_SCHEMA_DEPTH, checkDescriptor } from './descriptor.js';

const obj = { type: 'object', properties: {} };

function nested(depth: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < depth; i++) schema = { type: 'object', properties: { x: schema } };
  return schema;
}

describe('checkDescriptor', () => {
  it('accepts a named, described tool with an object schema', () => {
    expect(checkDescriptor({ name: 'ok', description: 'fine', inputSchema: obj }, 0)).toMatchObject({
      ok: true,
      descriptor: { name: 'ok' },
    });
  });

  it.each([
    [{ description: 'd', inputSchema: obj }, '#3 in the list', 'no name'],
    [{ name: 'n', description: 'd' }, '"n"', 'not a JSON object'],
    [{ name: 'n', description: 'd', inputSchema: [obj] }, '"n"', 'not a JSON object'],
    [{ name: 'n', description: 'd', inputSchema: { type: 'array' } }, '"n"', 'root type is "array"'],
    [{ name: 'n', description: 'd', inputSchema: { properties: {} } }, '"n"', 'root type is null'],
    [{ name: 'n', description: 'd', inputSchema: nested(MAX_SCHEMA_DEPTH + 1) }, '"n"', 'nests deeper'],
    ['just a string', '#3 in the list', 'not an object'],
  ])('refuses %j', (raw, tool, reason) => {
    const v = checkDescriptor(raw, 2);
    expect(v.ok).toBe(false);
    if (!v.ok) {
      expect(v.tool).toBe(tool);
      expect(v.reason).toContain(reason);
    }
  });

  it('leaves a name the model APIs refuse and a missing description to the tool builder', () => {
    expect(checkDescriptor({ name: 'bad name!', description: 'd', inputSchema: obj }, 0)).toMatchObject({
      ok: true,
      descriptor: { name: 'bad name!' },
    });
    const blank = checkDescriptor({ name: 'n', description: '   ', inputSchema: obj }, 0);
    expect(blank).toMatchObject({ ok: true, descriptor: { name: 'n', description: undefined } });
    expect(checkDescriptor({ name: 'n', inputSchema: obj }, 0)).toMatchObject({ ok: true, descriptor: { description: undefined } });
  });

  it('accepts a schema nested just within the bound', () => {
    expect(checkDescriptor({ name: 'n', description: 'd', inputSchema: nested(MAX_SCHEMA_DEPTH / 2 - 1) }, 0).ok).toBe(true);
  });
});
