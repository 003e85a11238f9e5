import { describe, expect, it } from 'vitest';
import { newFuncTool } from '../../toolkit/functool/index.js';
import type { FuncToolSpec } from '../../toolkit/functool/index.js';
import type { SourceName } from '../../toolkit/source.js';
import type { ToolEntry } from '../../toolkit/tool-set.js';
import type { Tool } from '../../toolkit/tool.js';
import { McpServeError } from './errors.js';
import { selectServedTools } from './served-tools.js';

const none = { tools: [], tags: [] };
const schema = { type: 'object', properties: {} } as const;

function fn(name: string, extra: Partial<FuncToolSpec> = {}): Tool {
  return newFuncTool({
    name,
    description: `the ${name} tool`,
    inputSchema: schema,
    handler: () => Promise.resolve({ status: 'completed', output: '{}', isError: false }),
    ...extra,
  });
}

/** An application-like tool: exposable, confirmable, tagged. */
function app(name: string, tags: string[] = []): Tool {
  return {
    name,
    description: `the ${name} command`,
    modelDescription: `the ${name} command`,
    inputSchema: schema,
    kind: 'application',
    presentation: 'command',
    definition: (d) => ({ name, description: name, inputSchema: schema, deferLoading: d }),
    execute: () => Promise.resolve({ status: 'completed', output: '', isError: false }),
    mcpExposable: () => true,
    a2aExposable: () => true,
    capabilities: {
      prompter: false,
      workDir: true,
      operatorPaced: false,
      deferrable: true,
      gate: { gated: false },
      tags,
      behavior: null,
      describeCall: null,
    },
  };
}

function entry(tool: Tool, source: SourceName): ToolEntry {
  return { tool, source, deferred: false };
}

const knowledge = (name: string): Tool => fn(name, { kind: 'builtin', exposure: { mcp: true, a2a: false } });

describe('selectServedTools', () => {
  it('serves application commands ahead of built-ins, and built-ins only when allowlisted', () => {
    const r = selectServedTools({
      entries: [
        entry(knowledge('knowledge_search'), 'knowledge'),
        entry(knowledge('knowledge_enumerate'), 'knowledge'),
        entry(app('echo'), 'application'),
      ],
      expose: { include: none, exclude: none },
      builtins: ['knowledge_search'],
    });
    expect(r.tools.map((t) => t.name)).toEqual(['echo', 'knowledge_search']);
    expect(r.filtered).toEqual([
      {
        name: 'knowledge_enumerate',
        source: 'knowledge',
        reason: 'not_exposed',
        detail: 'a built-in not listed in expose.agent.mcp.builtins',
      },
    ]);
  });

  it('never serves a tool that does not declare MCP exposure, whatever the allowlist says', () => {
    const memory = fn('memory_read', { kind: 'builtin', exposure: { mcp: false, a2a: false } });
    const r = selectServedTools({
      entries: [entry(memory, 'memory'), entry(fn('custom_one'), 'custom')],
      expose: { include: none, exclude: none },
      builtins: ['memory_read'],
    });
    expect(r.tools).toEqual([]);
    expect(r.filtered.map((f) => [f.name, f.reason])).toEqual([
      ['memory_read', 'not_exposed'],
      ['custom_one', 'not_exposed'],
    ]);
  });

  it('refuses a tool that cannot report whether it is gated', () => {
    const bare: Tool = {
      name: 'bare',
      description: 'no gate to report',
      modelDescription: 'no gate to report',
      inputSchema: schema,
      kind: 'application',
      presentation: 'command',
      definition: (d) => ({ name: 'bare', description: 'x', inputSchema: schema, deferLoading: d }),
      execute: () => Promise.resolve({ status: 'completed', output: '', isError: false }),
      mcpExposable: () => true,
      a2aExposable: () => true,
      capabilities: {
        prompter: false,
        workDir: false,
        operatorPaced: false,
        deferrable: true,
        gate: null,
        tags: [],
        behavior: null,
        describeCall: null,
      },
    };
    const r = selectServedTools({ entries: [entry(bare, 'application')], expose: { include: none, exclude: none }, builtins: [] });
    expect(r.tools).toEqual([]);
    expect(r.filtered[0]).toMatchObject({ name: 'bare', reason: 'not_confirmable' });
  });

  it('narrows with expose.agent.tools and names the key', () => {
    const r = selectServedTools({
      entries: [
        entry(app('stream_ls', ['ai:read_only']), 'application'),
        entry(app('stream_rm', ['ai:destructive']), 'application'),
        entry(app('echo'), 'application'),
      ],
      expose: { include: { tools: ['^stream_'], tags: [] }, exclude: { tools: [], tags: ['ai:destructive'] } },
      builtins: [],
    });
    expect(r.tools.map((t) => t.name)).toEqual(['stream_ls']);
    expect(r.filtered.map((f) => [f.name, f.reason])).toEqual([
      ['stream_rm', 'excluded'],
      ['echo', 'not_included'],
    ]);
    expect(r.filtered[0]?.detail).toMatch(/^expose\.agent\.tools: /);
  });

  it('rejects an invalid expose.agent.tools pattern naming the key', () => {
    expect(() => selectServedTools({ entries: [], expose: { include: { tools: ['('], tags: [] }, exclude: none }, builtins: [] })).toThrow(
      /expose\.agent\.tools\.include\.tools/,
    );
  });

  it('makes a second claim on a name a hard error', () => {
    const run = (): unknown =>
      selectServedTools({
        entries: [entry(knowledge('knowledge_search'), 'knowledge'), entry(app('knowledge_search'), 'application')],
        expose: { include: none, exclude: none },
        builtins: ['knowledge_search'],
      });
    expect(run).toThrow(McpServeError);
    expect(run).toThrow(/claimed by a application tool and a builtin tool/);
  });
});
