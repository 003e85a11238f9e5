import { describe, expect, it } from 'vitest';
import { FiskCommandTool } from './command-tool.js';

function tool(inputSchema: Record<string, unknown>): FiskCommandTool {
  return new FiskCommandTool({
    binary: '/bin/echo',
    name: 'thing_show',
    description: 'Shows a thing',
    tags: [],
    inputSchema,
    shape: { path: ['thing', 'show'], globals: [], flags: [], args: [] },
    confirmTags: [],
    credentialEnvNames: [],
  });
}

describe('a command tool schema', () => {
  it('is a frozen deep copy: the caller changing its own object changes nothing', () => {
    const schema = { type: 'object', properties: { name: { type: 'string', enum: ['a', 'b'] } }, required: ['name'] };
    const t = tool(schema);
    schema.properties.name.enum.push('c');
    schema.required.push('other');
    expect(t.inputSchema).toEqual({ type: 'object', properties: { name: { type: 'string', enum: ['a', 'b'] } }, required: ['name'] });
    const props = t.inputSchema['properties'] as Record<string, Record<string, unknown>>;
    expect(Object.isFrozen(t.inputSchema)).toBe(true);
    expect(Object.isFrozen(props['name'])).toBe(true);
    expect(Object.isFrozen(props['name']?.['enum'])).toBe(true);
    expect(() => (props['name']?.['enum'] as string[]).push('d')).toThrow(TypeError);
  });

  it('keeps a property named __proto__ as a property, as JSON gives it', () => {
    const schema = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}}}') as Record<string, unknown>;
    const props = tool(schema).inputSchema['properties'] as Record<string, unknown>;
    expect(Object.keys(props)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(props)).toBe(Object.prototype);
    expect(JSON.stringify(props)).toBe('{"__proto__":{"type":"string"}}');
  });

  it('hands out one frozen definition for each deferLoading, the same every time', () => {
    const t = tool({ type: 'object', properties: {} });
    const now = t.definition(false);
    expect(t.definition(false)).toBe(now);
    expect(Object.isFrozen(now)).toBe(true);
    expect(t.definition(true)).toBe(t.definition(true));
    expect(t.definition(true)).toEqual({ ...now, deferLoading: true });
  });
});
