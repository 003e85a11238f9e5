import { describe, expect, it } from 'vitest';
import { argModel, flagModel } from '../../agenttest/app-model.js';
import { jsonTextDepth } from '../../util/json-depth.js';
import { MODEL_MAX_DEPTH, readApplicationModel } from './model.js';

/** A schema nesting exactly `depth` levels of objects: `{ type, properties: { a: … } }` over and over. */
function schemaOfDepth(depth: number): Record<string, unknown> {
  // each wrapper adds two levels (the schema and its properties); an odd depth ends on a bare schema
  let schema: Record<string, unknown> = depth % 2 === 0 ? { type: 'object', properties: {} } : { type: 'object' };
  for (let d = depth % 2 === 0 ? 2 : 1; d < depth; d += 2) schema = { type: 'object', properties: { a: schema } };
  return schema;
}

/** A document whose only command holds `schema`, nested `levels` commands down. */
function documentWith(schema: Record<string, unknown>, levels = 1): unknown {
  let command: Record<string, unknown> = { name: 'leaf', restricted_schema: schema };
  for (let i = 1; i < levels; i++) command = { name: `group${i}`, commands: [command] };
  return { name: 'app', commands: [command] };
}

const reads = (doc: unknown): boolean => {
  try {
    readApplicationModel(doc);
    return true;
  } catch (err) {
    expect((err as Error).message).toMatch(/nests deeper than 256 levels of arrays and objects/);
    return false;
  }
};

describe('readApplicationModel nesting', () => {
  it('accepts exactly what the text depth limit accepts, for schemas and nested commands', () => {
    for (const levels of [1, 2, 5, 40]) {
      for (let depth = 1; depth < MODEL_MAX_DEPTH; depth += 1) {
        const doc = documentWith(schemaOfDepth(depth), levels);
        const textDepth = jsonTextDepth(JSON.stringify(doc));
        expect(reads(doc), `levels ${levels}, schema depth ${depth}, text depth ${textDepth}`).toBe(textDepth <= MODEL_MAX_DEPTH);
      }
    }
  });
  it('refuses a command tree nested past the limit, and does so without recursing that deep', () => {
    expect(reads(documentWith({ type: 'object' }, 127))).toBe(true); // the leaf's schema at 254 + 1
    expect(reads(documentWith({ type: 'object' }, 128))).toBe(false);
    let command: Record<string, unknown> = { name: 'leaf' };
    for (let i = 0; i < 100_000; i++) command = { name: `g${i}`, commands: [command] };
    expect(reads({ name: 'app', commands: [command] })).toBe(false);
  });
  it('ignores a deep value under a key it does not keep', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const model = readApplicationModel({
      name: 'app',
      extra: deep,
      commands: [{ name: 'leaf', extra: deep, restricted_schema: { type: 'object' } }],
    });
    expect(model.commands[0]).not.toHaveProperty('extra');
    expect(model).not.toHaveProperty('extra');
  });
});

describe('readApplicationModel copying', () => {
  const flag = flagModel('count', { help: 'how many' });
  const arg = argModel('target', { help: 'the target', required: true });
  const leaf = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    name: 'leaf',
    aliases: [],
    help: 'a leaf',
    help_long: '',
    hidden: false,
    default: false,
    tags: ['ai:read_only'],
    flags: [flag],
    args: [arg],
    commands: [],
    restricted_schema: { type: 'object' },
    ...extra,
  });
  it('keeps a command written whole as it was decoded, lists and all', () => {
    const decoded = leaf();
    const group = { ...leaf(), name: 'group', restricted_schema: undefined, commands: [decoded] };
    delete (group as Record<string, unknown>)['restricted_schema'];
    const model = readApplicationModel({ name: 'app', commands: [group] });
    expect(model.commands[0]).toBe(group);
    expect(model.commands[0]?.commands[0]).toBe(decoded);
  });
  it('copies a command with a missing field, an unknown key or a null schema, and fills in what is missing', () => {
    const partial = leaf();
    delete partial['aliases'];
    const read = readApplicationModel({ name: 'app', commands: [partial, leaf({ extra: 1 }), leaf({ schema: null })] });
    expect(read.commands[0]).not.toBe(partial);
    expect(read.commands[0]?.aliases).toEqual([]);
    expect(read.commands[1]).not.toHaveProperty('extra');
    expect(read.commands[2]).not.toHaveProperty('schema');
    expect(read.commands[2]?.restricted_schema).toEqual({ type: 'object' });
  });
  it('copies a whole command whose flag needed filling in, and keeps the rest of its lists', () => {
    const thin = { name: 'level' };
    const command = leaf({ flags: [flag, thin] });
    const read = readApplicationModel({ name: 'app', commands: [command] }).commands[0];
    expect(read).not.toBe(command);
    expect(read?.flags[0]).toBe(flag);
    expect(read?.flags[1]).toMatchObject({ name: 'level', help: '', default: [], boolean: false });
    expect(read?.args).toBe(command['args']);
  });
  it('still refuses a wrong type in a command that holds every field', () => {
    expect(() => readApplicationModel({ name: 'app', commands: [leaf({ hidden: 'no' })] })).toThrow(/hidden must be a boolean/);
    expect(() => readApplicationModel({ name: 'app', commands: [leaf({ tags: [1] })] })).toThrow(/tags must be a list of strings/);
    expect(() => readApplicationModel({ name: 'app', commands: [leaf({ restricted_schema: [] })] })).toThrow(/expected an object/);
  });
});
