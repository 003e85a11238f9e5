/**
 * What a person and the model meet of an application's tools, through `fisk info` and `fisk run`:
 * a badly named command, a filter that leaves nothing, a call missing its required arguments, and
 * the description the model is given.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { anthropicText, anthropicToolUse } from '../../agenttest/anthropic-wire.js';
import { startFakeModelServer } from '../../agenttest/fake-model-server.js';
import type { FakeModelServer } from '../../agenttest/fake-model-server.js';
import { EXIT } from '../exit-codes.js';
import { runCli } from '../program.js';
import { captureIo } from '../test-io.js';

const FIXTURE = resolve(import.meta.dirname, '../../../test/fixtures/fisk-app.mjs');

let dir: string;
let fake: FakeModelServer;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fisk-tool-surface-'));
  fake = await startFakeModelServer();
});
afterEach(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

function agent(body: string): string {
  const path = join(dir, 'agent.yaml');
  writeFileSync(path, `identity: surface\nsystem_prompt: You run things.\nllm:\n  model: claude-fake-1\n${body}`);
  return path;
}

async function fisk(args: string[], mode = ''): Promise<{ code: number; out: string; err: string }> {
  const io = captureIo({ PATH: process.env['PATH'], FIXTURE_MODE: mode }, dir);
  const code = await runCli(args, io);
  return { code, out: io.stdout(), err: io.stderr() };
}

const run = (config: string, args: string[], mode = ''): ReturnType<typeof fisk> =>
  fisk(['run', '--config', config, '--base-url', fake.url, '--api-key', 'sk-test', ...args], mode);

interface SentTool {
  readonly name: string;
  readonly description: string;
  readonly input_schema: { readonly properties: Record<string, { description?: string }>; readonly required?: string[] };
}
const sentTools = (): SentTool[] => (fake.requests[0]?.body as { tools: SentTool[] }).tools;

describe('a badly named command', () => {
  it('is skipped with a warning; the rest of the application still runs, and info --all lists it with the reason', async () => {
    const config = agent(`application_path: ${FIXTURE}\n`);
    fake.reply(anthropicText('fine'));
    const r = await run(config, ['go'], 'bad-name');
    expect(r.code).toBe(EXIT.ok);
    expect(r.err).toContain('command "say hi!" is not offered as a tool');
    expect(sentTools().map((t) => t.name)).toContain('stream_ls');
    const all = await fisk(['info', '--config', config, '--all'], 'bad-name');
    expect(all.code).toBe(EXIT.ok);
    expect(all.out).toMatch(/say hi!.*invalid_name/u);
  });
});

describe('a filter that removes every tool', () => {
  it('refuses the run naming the filter keys and the file, before contacting the model', async () => {
    const config = agent(`application_path: ${FIXTURE}\ninclude: {tools: ['^nothing_matches$']}\n`);
    const r = await run(config, ['go']);
    expect(r.code).toBe(EXIT.config);
    expect(r.err).toContain('include');
    expect(r.err).toContain(config);
    expect(fake.requests).toHaveLength(0);
  });

  it('leaves an agent with no tool source at all free to run', async () => {
    fake.reply(anthropicText('just talk'));
    const r = await run(agent(''), ['hello']);
    expect(r.code).toBe(EXIT.ok);
    expect(r.out).toBe('just talk\n');
  });

  it('is reported by fisk info', async () => {
    const config = agent(`application_path: ${FIXTURE}\nexclude: {tools: ['.*']}\n`);
    const r = await fisk(['info', '--config', config]);
    expect(r.code).toBe(EXIT.ok);
    expect(r.err).toContain(`warning: include: the filters in ${config} leave`);
    expect(r.err).toContain('loosen include or exclude');
  });
});

describe('a call missing its required arguments', () => {
  it('is shown as refused, never as a result, and the model is told the parameters', async () => {
    fake.reply(anthropicToolUse([{ id: 'toolu_1', name: 'stream_purge', input: {} }]), anthropicText('ok'));
    const r = await run(agent(`application_path: ${FIXTURE}\n`), ['purge', '--tool-output']);
    expect(r.code).toBe(EXIT.ok);
    expect(r.err).toContain('<- refused:');
    expect(r.err).not.toMatch(/<- \{/u);
    const second = JSON.stringify(fake.requests[1]?.body);
    expect(second).toMatch(/required/u);
    expect(second).toContain('stream');
  });
});

describe('the description the model gets', () => {
  it('sends the long help alone when it contains the short one, and marks optional parameters', async () => {
    fake.reply(anthropicText('ok'));
    const r = await run(agent(`application_path: ${FIXTURE}\n`), ['go'], 'long-help');
    expect(r.code).toBe(EXIT.ok);
    const echo = sentTools().find((t) => t.name === 'echo');
    expect(echo?.description.split('Echoes its arguments as JSON')).toHaveLength(2);
    expect(echo?.description).toContain('It writes its arguments back');
    const required = new Set(echo?.input_schema.required ?? []);
    const props = Object.entries(echo?.input_schema.properties ?? {});
    expect(props.length).toBeGreaterThan(0);
    for (const [name, p] of props) expect(p.description?.endsWith('(optional)') ?? false).toBe(!required.has(name));
  });
});
