import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfigForMode } from '../../config/index.js';
import { startMcpServer } from './http-server.js';
import { loadMcpTools } from './load-served.js';
import { mcpNotes } from './notes.js';
import { connectClient, resultText } from './test-support.js';

const PID_APP = fileURLToPath(new URL('../../../test/mcp/fixtures/pid-app.mjs', import.meta.url));
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function served(yaml: string): Promise<{ names: string[]; filtered: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'fisk-mcp-load-'));
  dirs.push(dir);
  const config = parseConfigForMode({ text: yaml }, 'mcp');
  const tools = await loadMcpTools(config, { env: {}, cwd: dir });
  return { names: tools.served.map((t) => t.name), filtered: tools.filtered.map((f) => `${f.name}:${f.reason}`) };
}

const knowledge = 'harness: {knowledge: {enabled: true, read_tool: true}}\n';

describe('loadMcpTools', () => {
  it('serves the knowledge built-ins only when allowlisted, after the application commands', async () => {
    const r = await served(`identity: t\napplication_path: ${PID_APP}\n${knowledge}expose: {agent: {mcp: {builtins: [knowledge_search]}}}\n`);
    expect(r.names).toEqual(['echo', 'purge', 'hang', 'fail', 'knowledge_search']);
    expect(r.filtered).toEqual(['secret:denied', 'knowledge_enumerate:not_exposed', 'knowledge_read:not_exposed']);
  });

  it('serves both knowledge tools when both are listed, with no application', async () => {
    const r = await served(`${knowledge}expose: {agent: {mcp: {builtins: [knowledge_search, knowledge_enumerate]}}}\n`);
    expect(r.names).toEqual(['knowledge_search', 'knowledge_enumerate']);
  });

  it('serves no knowledge tool when none is listed', async () => {
    const r = await served(`identity: t\napplication_path: ${PID_APP}\n${knowledge}expose: {agent: {mcp: {}}}\n`);
    expect(r.names).toEqual(['echo', 'purge', 'hang', 'fail']);
  });

  it('serves a knowledge tool over HTTP, its JSON verbatim', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fisk-mcp-load-'));
    dirs.push(dir);
    const config = parseConfigForMode({ text: `${knowledge}expose: {agent: {mcp: {builtins: [knowledge_search, knowledge_enumerate]}}}\n` }, 'mcp');
    const tools = await loadMcpTools(config, { env: {}, cwd: dir });
    const server = await startMcpServer({ host: '127.0.0.1', port: 0, identity: { name: 'k', version: '1', instructions: '' }, tools: tools.served, confirmOverMcp: 'auto', maxConcurrentTools: 2, toolTimeoutMs: 30_000 });
    const client = await connectClient(server.url);
    try {
      const listed = (await client.listTools()).tools;
      expect(listed.map((t) => [t.name, t.annotations?.readOnlyHint])).toEqual([
        ['knowledge_search', true],
        ['knowledge_enumerate', true],
      ]);
      const r = await client.callTool({ name: 'knowledge_search', arguments: { query: 'retention' } });
      const direct = await tools.served[0]?.execute('{"query":"retention"}', {}, new AbortController().signal);
      expect(direct?.status).toBe('completed');
      expect(resultText(r)).toBe(direct?.status === 'completed' ? direct.output : '');
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('refuses to start with nothing to serve', async () => {
    await expect(served(`${knowledge}expose: {agent: {mcp: {}}}\n`)).rejects.toThrow(/no tools available after filtering/);
  });
});

describe('mcpNotes', () => {
  it('says which settings do nothing over MCP', () => {
    const config = parseConfigForMode({ text: 'harness: {human_in_the_loop: {enabled: true}, memory: {enabled: true}, knowledge: {enabled: true}}\nexpose: {agent: {mcp: {}}}\n' }, 'mcp');
    const keys = mcpNotes(config).map((n) => `${n.level} ${n.key}`);
    expect(keys).toEqual(['note application_path', 'warning harness.human_in_the_loop', 'warning harness.memory', 'note expose.agent.mcp.builtins', 'warning expose.agent.mcp.confirm_over_mcp']);
  });

  it('warns that gated tools run ungated unless confirm_over_mcp is always', () => {
    const notes = (value: string) =>
      mcpNotes(parseConfigForMode({ text: `identity: t\napplication_path: ${PID_APP}\nexpose: {agent: {mcp: {confirm_over_mcp: ${value}}}}\n` }, 'mcp'));
    expect(notes('auto')).toEqual([expect.objectContaining({ level: 'warning', key: 'expose.agent.mcp.confirm_over_mcp', message: expect.stringMatching(/run ungated for clients that cannot be asked/) as unknown })]);
    expect(notes('never')[0]?.message).toMatch(/run without asking any client/);
    expect(notes('always')).toEqual([]);
  });

  it('warns what a client loses when only one knowledge tool is served', () => {
    const config = parseConfigForMode({ text: `identity: t\napplication_path: ${PID_APP}\nharness: {knowledge: {enabled: true}}\nexpose: {agent: {mcp: {builtins: [knowledge_enumerate], confirm_over_mcp: always}}}\n` }, 'mcp');
    const notes = mcpNotes(config);
    expect(notes).toHaveLength(1);
    expect(notes[0]?.message).toMatch(/knowledge_enumerate .* without knowledge_search/);
  });
});
