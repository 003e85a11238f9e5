import { describe, expect, it } from 'vitest';
import { ToolkitError } from '../errors.js';

import { errorOutcome, jsonOutcome, newFuncTool } from './functool.js';
import type { FuncToolSpec } from './spec.js';

const base: FuncToolSpec = {
  name: 'echo',
  description: 'Echoes its input',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  handler: (input) => Promise.resolve(jsonOutcome(input)),
};
const remote = { kind: 'remote', agent: 'peer', remoteName: 'echo' } as const;
const mcp = { kind: 'mcp', server: 'files', remoteName: 'echo' } as const;

function refusal(spec: FuncToolSpec): string {
  try {
    newFuncTool(spec);
  } catch (err) {
    expect(err).toBeInstanceOf(ToolkitError);
    expect((err as ToolkitError).code).toBe('spec');
    return (err as Error).message;
  }
  throw new Error('expected the spec to be refused');
}

describe('newFuncTool construction rules', () => {
  it('refuses a gated remote tool, and gates an MCP-backed one (its server has no operator to gate it)', () => {
    expect(refusal({ ...base, origin: remote, confirm: { trigger: 'ai:confirm' } })).toMatch(/cannot be confirm-gated/);
    expect(newFuncTool({ ...base, origin: mcp, confirm: { trigger: 'confirm: always' } }).capabilities.gate).toEqual({
      gated: true,
      trigger: 'confirm: always',
    });
    expect(refusal({ ...base, origin: mcp, confirm: { trigger: 'x' }, exposure: { mcp: true, a2a: false } })).toMatch(/cannot be exposed/);
  });
  it('refuses exposure of an imported or gated tool', () => {
    expect(refusal({ ...base, origin: remote, exposure: { mcp: true, a2a: false } })).toMatch(/cannot be exposed/);
    expect(refusal({ ...base, origin: mcp, exposure: { mcp: false, a2a: true } })).toMatch(/cannot be exposed/);
    expect(refusal({ ...base, kind: 'builtin', confirm: { trigger: 'ai:confirm' }, exposure: { mcp: true, a2a: false } })).toMatch(
      /cannot declare exposure/,
    );
  });
  it('refuses a built-in that did not state its exposure', () => {
    expect(refusal({ ...base, kind: 'builtin' })).toMatch(/must state its exposure/);
    expect(newFuncTool({ ...base, kind: 'builtin', exposure: { mcp: false, a2a: false } }).mcpExposable()).toBe(false);
  });
  it('refuses bad names, empty descriptions, non-object schemas and local validation of imported tools', () => {
    expect(refusal({ ...base, name: 'has space' })).toMatch(/name must be/);
    expect(refusal({ ...base, name: 'x'.repeat(65) })).toMatch(/name must be/);
    expect(refusal({ ...base, description: '  ' })).toMatch(/description is empty/);
    expect(refusal({ ...base, inputSchema: { type: 'array' } })).toMatch(/schema root/);
    expect(refusal({ ...base, origin: remote, validateRequired: true })).toMatch(/cannot validate required/);
  });
});

describe('FuncTool', () => {
  it('answers the contract for a custom tool with default-deny exposure', () => {
    const t = newFuncTool({ ...base, tags: ['team:ops'] });
    expect(t.kind).toBe('custom');
    expect(t.presentation).toBe('traced');
    expect(t.mcpExposable()).toBe(false);
    expect(t.a2aExposable()).toBe(false);
    expect(t.capabilities.gate).toEqual({ gated: false });
    expect(t.definition(true)).toEqual({
      name: 'echo',
      description: 'Echoes its input\n\nTags: team:ops',
      inputSchema: base.inputSchema,
      deferLoading: true,
    });
    expect(t.capabilities.gate !== null && true && t.capabilities.deferrable).toBe(true);
    expect(t.capabilities.prompter || t.capabilities.workDir || t.capabilities.operatorPaced).toBe(false);
  });
  it('takes kind and presentation from the origin', () => {
    const t = newFuncTool({ ...base, origin: mcp });
    expect(t.kind).toBe('mcp');
    expect(t.presentation).toBe('remote');
  });
  it('never defers a built-in and grants only the capabilities asked for', () => {
    const t = newFuncTool({
      ...base,
      kind: 'builtin',
      exposure: { mcp: false, a2a: false },
      deferrable: true,
      needsPrompter: true,
      operatorPaced: true,
    });
    expect(t.capabilities.deferrable).toBe(false);
    expect(t.capabilities.prompter && t.capabilities.operatorPaced).toBe(true);
    expect(t.capabilities.workDir).toBe(false);
  });
  it('does not share or allow mutation of its schema', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    const t = newFuncTool({ ...base, inputSchema: schema });
    schema.properties.a.type = 'number';
    expect((t.inputSchema['properties'] as Record<string, Record<string, unknown>>)['a']?.['type']).toBe('string');
    expect(Object.isFrozen(t.inputSchema)).toBe(true);
  });
  it('validates required arguments before the handler for local tools only', async () => {
    const signal = new AbortController().signal;
    const local = newFuncTool(base);
    expect(await local.execute('{}', {}, signal)).toEqual(errorOutcome('missing required argument "text"'));
    expect(await local.execute('[]', {}, signal)).toEqual(errorOutcome('arguments must be a JSON object'));
    expect(await local.execute('{"text":"hi"}', {}, signal)).toEqual(jsonOutcome({ text: 'hi' }));
    const imported = newFuncTool({ ...base, origin: remote });
    expect(await imported.execute('null', {}, signal)).toEqual(jsonOutcome({}));
  });
  it('reports a confirm gate with its trigger', () => {
    expect(newFuncTool({ ...base, confirm: { trigger: 'ai:confirm' } }).capabilities.gate).toEqual({ gated: true, trigger: 'ai:confirm' });
  });

  it('answers a value with no JSON text (undefined) as null, never as an empty output', () => {
    expect(jsonOutcome(undefined)).toEqual({ status: 'completed', output: 'null', isError: false });
    expect(jsonOutcome(() => 1)).toEqual({ status: 'completed', output: 'null', isError: false });
    expect(jsonOutcome({ a: undefined })).toEqual({ status: 'completed', output: '{}', isError: false });
  });
});
