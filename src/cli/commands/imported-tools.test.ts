/**
 * Imported tools and the harness tool search as an operator meets them, through the CLI: `fisk
 * run` against the fake Chat Completions server with the official SDK, `fisk info` listing an MCP
 * server nobody here wrote (`@modelcontextprotocol/server-everything` over stdio), and a peer's
 * tools served over a private nats-server.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildAgentCard, selectExposed, startToolService } from '../../a2a/index.js';
import type { ServiceHandle } from '../../a2a/index.js';
import { startFakeModelServer } from '../../agenttest/fake-model-server.js';
import type { FakeModelServer, ReceivedRequest } from '../../agenttest/fake-model-server.js';
import { generatedApplication } from '../../agenttest/generated-app.js';
import { startNatsServer } from '../../agenttest/nats-server.js';
import type { NatsServer } from '../../agenttest/nats-server.js';
import { chatCompletion } from '../../agenttest/openai-wire.js';
import { fakeTool } from '../../toolkit/test-tools.js';
import { EXIT } from '../exit-codes.js';
import { runCli } from '../program.js';
import { captureIo } from '../test-io.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const EVERYTHING = join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');

let home: string;
let fake: FakeModelServer;
let nats: NatsServer;
let nc: NatsConnection;
let service: ServiceHandle;
let env: Record<string, string>;

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'fisk-imported-'));
  fake = await startFakeModelServer();
  nats = await startNatsServer();
  env = { PATH: process.env['PATH'] ?? '', HOME: home, XDG_CONFIG_HOME: join(home, 'xdg'), OPENAI_API_KEY: 'sk-imported-secret-value' };
  mkdirSync(join(home, 'xdg', 'nats', 'context'), { recursive: true });
  writeFileSync(join(home, 'xdg', 'nats', 'context', 'lab.json'), JSON.stringify({ url: nats.url }));
  nc = await connect({ servers: nats.url });
  const tools = selectExposed([
    fakeTool('disk_usage', {
      exposure: { mcp: false, a2a: true },
      description: 'Reports disk usage of a path',
      inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      handler: (input) =>
        Promise.resolve({ status: 'completed', output: JSON.stringify({ served_by: 'ops-agent', got: input }), isError: false }),
    }),
  ]).exposed;
  service = await startToolService(
    { connection: nc },
    { identity: 'ops-agent', card: buildAgentCard({ name: 'ops-agent', version: '1.0.0', description: 'ops', tools }), tools },
  );

  // a 300-command application: its introspection is the generated model, each command echoes its argv
  const app = join(home, 'big-app.mjs');
  writeFileSync(
    app,
    `#!/usr/bin/env node\nconst model = ${JSON.stringify(generatedApplication().model)};\n` +
      `if (process.argv.includes('--fisk-introspect')) process.stdout.write(JSON.stringify(model));\nelse process.stdout.write(JSON.stringify({ argv: process.argv.slice(2) }));\n`,
  );
  chmodSync(app, 0o755);
});
afterAll(async () => {
  await service.stop();
  await nc.close();
  await nats.stop();
  await fake.close();
  rmSync(home, { recursive: true, force: true });
});
/** The fake server is shared: each test reads only the requests it caused. */
let base = 0;
beforeEach(() => {
  base = fake.requests.length;
});
const sent = (i: number): ReceivedRequest | undefined => fake.requests[base + i];
const sentCount = (): number => fake.requests.length - base;

function agentFile(name: string, body: string): string {
  const path = join(home, name);
  writeFileSync(path, `system_prompt: You help.\nllm:\n  provider: openai-chat\n  model: local-fake-1\n${body}`);
  return path;
}

async function cli(args: readonly string[]): Promise<{ code: number; out: string; err: string }> {
  const io = captureIo(env, home);
  const code = await runCli([...args], io);
  return { code, out: io.stdout(), err: io.stderr() };
}

interface WireTool {
  readonly function: { readonly name: string };
}
function toolNames(r: ReceivedRequest | undefined): string[] {
  return ((r?.body as { tools?: WireTool[] } | undefined)?.tools ?? []).map((t) => t.function.name);
}
function toolResult(r: ReceivedRequest | undefined, id: string): string {
  const messages = (r?.body as { messages?: { role: string; tool_call_id?: string; content?: unknown }[] } | undefined)?.messages ?? [];
  const m = messages.find((x) => x.role === 'tool' && x.tool_call_id === id);
  return typeof m?.content === 'string' ? m.content : '';
}

const everything = (extra = ''): string =>
  `mcp_clients:\n  - name: everything\n    transport: stdio\n    command: ${process.execPath}\n    args: [${JSON.stringify(EVERYTHING)}, stdio]\n${extra}`;

describe('the harness tool search in fisk run', () => {
  it('sends the search tool instead of 300 definitions, then the loaded definition, and refuses an unloaded call', async () => {
    const config = agentFile('big.yaml', `identity: big\napplication_path: ${join(home, 'big-app.mjs')}\n`);
    fake.reply(
      chatCompletion(null, { tool_calls: [{ id: 'c1', name: 'stream_info', arguments: {} }] }),
      chatCompletion(null, { tool_calls: [{ id: 'c2', name: 'tool_search', arguments: { query: 'stream_info' } }] }),
      chatCompletion(null, { tool_calls: [{ id: 'c3', name: 'stream_info', arguments: { name: 'orders' } }] }),
      chatCompletion('done'),
    );
    const r = await cli(['run', '--config', config, '--base-url', `${fake.url}/v1`, 'look at the stream']);
    expect(r.err).not.toContain('tool search');
    expect(r.code).toBe(EXIT.ok);
    expect(r.out).toBe('done\n');
    expect(sentCount()).toBe(4);
    const first = toolNames(sent(0));
    expect(first).toContain('tool_search');
    expect(first).not.toContain('stream_info');
    expect(first.length).toBeLessThan(20);
    // the unloaded call never ran: the model is told to search first
    expect(toolResult(sent(1), 'c1')).toMatch(/not run: its definition is not loaded yet/);
    // after the search, the loaded definition is sent and the call runs the command
    const third = toolNames(sent(2));
    expect(third).toContain('stream_info');
    expect(third.length).toBe(first.length + 1);
    expect(toolResult(sent(3), 'c3')).toContain('"command":"stream info -- orders"');
    expect(toolResult(sent(3), 'c3')).toContain('orders');
  }, 60_000);

  it('fisk info says how the model reaches the deferred definitions', async () => {
    const config = agentFile('big-info.yaml', `identity: big\napplication_path: ${join(home, 'big-app.mjs')}\n`);
    const r = await cli(['info', '--config', config, '--json']);
    expect(r.code).toBe(EXIT.ok);
    const report = JSON.parse(r.out) as { toolReach: { mode: string; deferred: string[]; summary: string } };
    expect(report.toolReach.mode).toBe('harness_search');
    expect(report.toolReach.deferred).toHaveLength(300);
    expect(report.toolReach.summary).toContain('tool_search');
  }, 60_000);
});

describe('MCP servers in mcp_clients', () => {
  it('fisk info lists the tools of server-everything with their server, and a failing server as a warning', async () => {
    const broken = `  - name: broken\n    transport: stdio\n    command: ${process.execPath}\n    args: ["-e", "process.exit(3)"]\n    startup_timeout: 5s\n`;
    const config = agentFile('mcp-info.yaml', `identity: lister\n${everything()}${broken}`);
    const r = await cli(['info', '--config', config]);
    expect(r.code).toBe(EXIT.ok);
    expect(r.out).toMatch(/echo\s+mcp:everything/);
    expect(r.out).toMatch(/get-sum\s+mcp:everything/);
    expect(r.err).toMatch(/warning: mcp_clients: .*broken/);
    const all = await cli([
      'info',
      '--config',
      agentFile('mcp-info-all.yaml', `identity: lister\n${everything('    exclude:\n      tools: ["^get-sum$"]\n')}`),
      '--all',
    ]);
    expect(all.out).toMatch(/get-sum\s+mcp:everything\s+excluded/);
  }, 60_000);

  it('a run calls an MCP tool and the model reads its answer', async () => {
    const config = agentFile('mcp-run.yaml', `identity: caller\n${everything('    include:\n      tools: ["^echo$"]\n')}`);
    fake.reply(
      chatCompletion(null, { tool_calls: [{ id: 'e1', name: 'echo', arguments: { message: 'hello from the model' } }] }),
      chatCompletion('echoed'),
    );
    const r = await cli(['run', '--config', config, '--base-url', `${fake.url}/v1`, 'echo something']);
    expect(r.code).toBe(EXIT.ok);
    expect(toolNames(sent(0))).toEqual(['echo']);
    expect(toolResult(sent(1), 'e1')).toContain('hello from the model');
    // the call's line says where it ran
    expect(r.err).toContain('-> echo (on mcp:everything) message="hello from the model"');
  }, 60_000);

  it('a run refuses to start when a server fails, naming it', async () => {
    const config = agentFile(
      'mcp-broken.yaml',
      `identity: caller\nmcp_clients:\n  - name: broken\n    transport: stdio\n    command: ${process.execPath}\n    args: ["-e", "process.exit(3)"]\n    startup_timeout: 5s\n`,
    );
    const r = await cli(['run', '--config', config, '--base-url', `${fake.url}/v1`, 'go']);
    expect(r.code).not.toBe(EXIT.ok);
    expect(r.err).toContain('broken');
    expect(sentCount()).toBe(0);
  }, 60_000);
});

describe('remote tools in remote_tools', () => {
  it("a run imports a peer's tools over nats_context and calls one on the peer", async () => {
    const config = agentFile('remote.yaml', `identity: importer\nnats_context: lab\nremote_tools:\n  - name: ops-agent\n    alias: ops\n`);
    fake.reply(
      chatCompletion(null, { tool_calls: [{ id: 'r1', name: 'disk_usage', arguments: { path: '/var' } }] }),
      chatCompletion('done'),
    );
    const r = await cli(['run', '--config', config, '--base-url', `${fake.url}/v1`, 'check the disk']);
    expect(r.code).toBe(EXIT.ok);
    expect(toolNames(sent(0))).toEqual(['disk_usage']);
    expect(toolResult(sent(1), 'r1')).toContain('served_by');
    expect(toolResult(sent(1), 'r1')).toContain('/var');
    expect(r.err).toContain('-> disk_usage (on ops-agent) path=/var');
  }, 60_000);

  it('fisk info lists the peer tools, and an absent peer is a warning while a run refuses it', async () => {
    const config = agentFile(
      'remote-info.yaml',
      `identity: importer\nnats_context: lab\nremote_tools:\n  - name: ops-agent\n    alias: ops\n  - name: nobody\n    alias: gone\n`,
    );
    const info = await cli(['info', '--config', config]);
    expect(info.code).toBe(EXIT.ok);
    expect(info.out).toMatch(/disk_usage\s+a2a:ops/);
    expect(info.err).toMatch(/warning: remote_tools: remote agent "nobody" could not be discovered/);
    const run = await cli(['run', '--config', config, '--base-url', `${fake.url}/v1`, 'go']);
    expect(run.code).not.toBe(EXIT.ok);
    expect(run.err).toContain('nobody');
    expect(sentCount()).toBe(0);
  }, 60_000);
});
