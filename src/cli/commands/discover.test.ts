import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAgentCard, selectExposed, startToolService } from '../../a2a/index.js';
import type { ServiceHandle } from '../../a2a/index.js';
import { startNatsServer } from '../../agenttest/nats-server.js';
import type { NatsServer } from '../../agenttest/nats-server.js';
import { fakeTool } from '../../toolkit/test-tools.js';
import { runCli } from '../program.js';
import { captureIo } from '../test-io.js';

let server: NatsServer;
let nc: NatsConnection;
let service: ServiceHandle;
let home: string;
let env: Record<string, string>;

beforeAll(async () => {
  server = await startNatsServer();
  home = mkdtempSync(join(tmpdir(), 'fisk-discover-'));
  env = { HOME: home, XDG_CONFIG_HOME: join(home, 'xdg') };
  mkdirSync(join(home, 'xdg', 'nats', 'context'), { recursive: true });
  writeFileSync(join(home, 'xdg', 'nats', 'context', 'lab.json'), JSON.stringify({ url: server.url }));
  writeFileSync(join(home, 'agent.yaml'), 'identity: asker\nnats_context: lab\n');
  writeFileSync(join(home, 'no-context.yaml'), 'identity: asker\n');
  nc = await connect({ servers: server.url });
  const tools = selectExposed([
    fakeTool('disk_usage', {
      exposure: { mcp: false, a2a: true },
      description: 'Reports disk usage\u001b[31m in red',
      inputSchema: {
        type: 'object',
        properties: { path: { type: 'string', description: 'where to look' }, depth: { type: 'integer' } },
        required: ['path'],
      },
    }),
    fakeTool('hidden'),
  ]).exposed;
  service = await startToolService(
    { connection: nc },
    {
      identity: 'ops-agent',
      card: buildAgentCard({ name: 'ops-agent', version: '2.1.0', description: 'runs the ops tooling', tools }),
      tools,
    },
  );
});
afterAll(async () => {
  await service.stop();
  await nc.close();
  await server.stop();
  rmSync(home, { recursive: true, force: true });
});

describe('fisk discover', () => {
  it("prints a served peer's card with its tools and their parameters, read through agent.yaml's nats_context", async () => {
    const io = captureIo(env, home);
    expect(await runCli(['discover', 'ops-agent'], io)).toBe(0);
    const out = io.stdout();
    expect(out).toContain('Agent card for ops-agent');
    expect(out).toMatch(/Version:\s+2\.1\.0/);
    expect(out).toMatch(/Description:\s+runs the ops tooling/);
    expect(out).toContain('io.choria.fisk-ai.v1');
    expect(out).toContain('disk_usage');
    expect(out).toContain('path (string, required) - where to look');
    expect(out).toContain('depth (integer)');
    expect(out).not.toContain('hidden');
    expect(out).not.toContain('\u001b');
  });

  it('takes --context instead of the configuration', async () => {
    const io = captureIo(env, join(home, 'xdg'));
    expect(await runCli(['discover', 'ops-agent', '--context', 'lab'], io)).toBe(0);
    expect(io.stdout()).toContain('disk_usage');
    // fisk run calls the same flag --nats-context; both names work, and two different contexts are refused
    const named = captureIo(env, join(home, 'xdg'));
    expect(await runCli(['discover', 'ops-agent', '--nats-context', 'lab'], named)).toBe(0);
    expect(named.stdout()).toContain('disk_usage');
    const both = captureIo(env, join(home, 'xdg'));
    expect(await runCli(['discover', 'ops-agent', '--context', 'lab', '--nats-context', 'other'], both)).toBe(2);
    expect(both.stderr()).toContain('name different NATS contexts; pass one');
  });

  it('names the key to set when the configuration has no nats_context, and fails clearly for an absent agent', async () => {
    const io = captureIo(env, home);
    expect(await runCli(['discover', 'ops-agent', '--config', 'no-context.yaml'], io)).not.toBe(0);
    expect(io.stderr()).toMatch(/no nats_context in "no-context.yaml"; set nats_context there or pass --context/);
    const io2 = captureIo(env, home);
    expect(await runCli(['discover', 'nobody', '--timeout', '2'], io2)).not.toBe(0);
    expect(io2.stderr()).toMatch(/cannot discover agent "nobody" on NATS context "lab": remote agent unavailable/);
    const io3 = captureIo(env, home);
    expect(await runCli(['discover', 'bad.name'], io3)).not.toBe(0);
    expect(io3.stderr()).toMatch(/invalid/);
  });
});

describe('fisk discover URL, the card as text', () => {
  it('says a card wants a bearer token and where to give it, and when it declares none', async () => {
    const { renderA2aCard } = await import('./discover.js');
    const { buildHttpCard } = await import('../../serve/a2a-http/index.js');
    const card = (bearer: boolean) =>
      buildHttpCard({ identity: 'ops', version: '1.0.0', description: 'd', url: 'http://127.0.0.1:1/', bearer, tools: [] });
    expect(renderA2aCard('http://127.0.0.1:1/', card(true))).toContain(
      '  Auth:        bearer (send it with remote_agents[].headers, for example Authorization: Bearer ${TOKEN})',
    );
    expect(renderA2aCard('http://127.0.0.1:1/', card(false))).toContain('  Auth:        none declared');
  });
});
