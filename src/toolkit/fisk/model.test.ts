import { describe, expect, it } from 'vitest';
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
