import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXIT } from './exit-codes.js';
import { runCli } from './program.js';
import { captureIo } from './test-io.js';

const made: string[] = [];
afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function configFile(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'fisk-cli-'));
  made.push(dir);
  const path = join(dir, 'agent.yaml');
  writeFileSync(path, text);
  return path;
}

describe('fisk', () => {
  it('lists all seven commands in its help', async () => {
    const io = captureIo();
    expect(await runCli(['--help'], io)).toBe(EXIT.ok);
    for (const cmd of ['run', 'serve', 'mcp', 'knowledge|rag', 'session', 'info', 'discover']) {
      expect(io.stdout()).toContain(cmd);
    }
  });

  it('prints its version', async () => {
    const io = captureIo();
    expect(await runCli(['--version'], io)).toBe(EXIT.ok);
    expect(io.stdout().trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('refuses an unknown command as a usage error', async () => {
    const io = captureIo();
    expect(await runCli(['frobnicate'], io)).toBe(EXIT.usage);
    expect(io.stderr()).toMatch(/unknown command/);
  });

  it('exits with the configuration status and names the key', async () => {
    const io = captureIo();
    const path = configFile('harness:\n  memroy: {}\n');
    expect(await runCli(['info', '--config', path], io)).toBe(EXIT.config);
    expect(io.stderr()).toContain('harness.memroy: unknown key (did you mean harness.memory?)');
    expect(io.stdout()).toBe('');
  });

  it('explains a missing configuration file', async () => {
    const io = captureIo();
    expect(await runCli(['info', '--config', '/nonexistent/agent.yaml'], io)).toBe(EXIT.config);
    expect(io.stderr()).toMatch(/does not exist; pass --config/);
  });
});

describe('fisk info', () => {
  const path = configFile(`identity: ops
system_prompt: |
  You help the operator.
llm:
  model: claude-sonnet-4-6
  budget: {max_iterations: 7}
remote_agents: [{name: other}]
`);

  it('reports settings with their origins, the model and the prompt', async () => {
    const io = captureIo({ ANTHROPIC_BASE_URL: 'http://127.0.0.1:9999' });
    expect(await runCli(['info', '--config', path], io)).toBe(EXIT.ok);
    const out = io.stdout();
    expect(out).toMatch(/llm\.budget\.max_iterations\s+7\s+\[file\]/);
    expect(out).toMatch(/llm\.budget\.max_tokens\s+500000\s+\[default\]/);
    expect(out).toMatch(/llm\.base_url\s+http:\/\/127\.0\.0\.1:9999\s+\[environment\]/);
    expect(out).toMatch(/Model\s+claude-sonnet-4-6/);
    expect(out).toContain('You help the operator.');
    expect(io.stderr()).toMatch(/warning: remote_agents/);
  });

  it('gives the same facts as a stable JSON document', async () => {
    const io = captureIo();
    expect(await runCli(['info', '--config', path, '--json'], io)).toBe(EXIT.ok);
    const doc = JSON.parse(io.stdout()) as {
      identity: { name: string; source: string };
      model: { model: string; provider: string; toolSearch: string };
      settings: { key: string; value: unknown; origin: string }[];
      prompt: string;
    };
    expect(doc.identity).toEqual({ name: 'ops', source: 'explicit' });
    expect(doc.model).toMatchObject({ model: 'claude-sonnet-4-6', provider: 'anthropic' });
    expect(doc.settings.find((s) => s.key === 'llm.budget.max_iterations')).toEqual({
      key: 'llm.budget.max_iterations',
      value: 7,
      origin: 'file',
    });
    expect(doc.prompt).toBe('You help the operator.\n');
  });

  it('describes a configuration it could not run', async () => {
    const io = captureIo();
    const lenient = configFile('llm: {provider: openai-chat}\n');
    expect(await runCli(['info', '--config', lenient], io)).toBe(EXIT.ok);
    expect(io.stdout()).toMatch(/no llm\.model set/);
    expect(io.stdout()).toMatch(/no system_prompt defined/);
  });
});

describe('fisk serve', () => {
  it('refuses a configuration that enables no endpoint, naming the keys that would', async () => {
    const io = captureIo();
    const path = configFile('identity: a\nnats_context: c\nsystem_prompt: p\nllm: {model: m}\n');
    expect(await runCli(['serve', '--config', path], io)).not.toBe(EXIT.ok);
    expect(io.stderr(), io.stderr()).toMatch(/enables no endpoint to serve/);
    for (const key of ['expose.agent.a2a.serve_tools', 'expose.agent.a2a.prompts', 'expose.agent.jobs', 'expose.agent.slack'])
      expect(io.stderr()).toContain(key);
  });

  it('names the missing Slack token variable before connecting anywhere', async () => {
    const io = captureIo({ PATH: process.env['PATH'], SLACK_APP_TOKEN: 'xapp-1' });
    const path = configFile('identity: a\nsystem_prompt: p\nllm: {model: m}\nexpose: {agent: {slack: {channels: [C1]}}}\n');
    expect(await runCli(['serve', '--config', path], io)).not.toBe(EXIT.ok);
    expect(io.stderr(), io.stderr()).toMatch(/expose\.agent\.slack needs SLACK_BOT_TOKEN in the environment/);
  });
});
