import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ScriptedProvider, textResponse } from '../../agenttest/scripted-provider.js';
import { parseConfigForMode } from '../../config/index.js';
import { openRuntime, startRun } from '../../host/index.js';
import { prepareRunKnowledge } from '../../knowledge/run-knowledge.js';
import { EXIT } from '../exit-codes.js';
import { runCli } from '../program.js';
import { captureIo } from '../test-io.js';
import type { InfoReport } from './info.js';

const app = fileURLToPath(new URL('../../../test/fixtures/fisk-app.mjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'fisk-info-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

function configFile(extra: string): string {
  const path = join(dir, `agent-${n++}.yaml`);
  writeFileSync(
    path,
    `identity: ops
application_path: ${app}
system_prompt: You help the operator.
llm:
  model: claude-sonnet-4-6
${extra}`,
  );
  return path;
}

const env = { PATH: process.env['PATH'], FIXTURE_MODE: '' };

async function info(path: string, ...flags: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = captureIo(env);
  const code = await runCli(['info', '--config', path, ...flags], io);
  return { code, out: io.stdout(), err: io.stderr() };
}

describe('fisk info tools', () => {
  it('introspects the application once for a listing', async () => {
    const log = join(dir, `pids-${n}`);
    const io = captureIo({ ...env, FIXTURE_PIDLOG: log });
    expect(await runCli(['info', '--config', configFile(''), '--json'], io)).toBe(EXIT.ok);
    expect((JSON.parse(io.stdout()) as InfoReport).tools.map((t) => t.name)).toContain('stream_ls');
    expect(
      readFileSync(log, 'utf8')
        .split('\n')
        .filter((l) => l !== ''),
    ).toHaveLength(1);
  });
  it('reports exactly the names and definitions the run sends to the model', async () => {
    const path = configFile(`global_flags: [context]
harness:
  human_in_the_loop: {enabled: true}
  confirm_tags: [impact:rw]
exclude: {tools: ['^flood$']}
`);
    const r = await info(path, '--json');
    expect(r.code).toBe(EXIT.ok);
    const report = JSON.parse(r.out) as InfoReport;

    // The run: the same host, then the agent loop against a scripted model that records requests.
    const config = parseConfigForMode({ path }, 'run');
    const provider = new ScriptedProvider([textResponse('done')], { caps: { toolSearch: true } });
    const runtime = await openRuntime(config, 'run', { env, provider });
    const handle = await startRun(runtime, { prompt: 'hello' });
    await handle.outcome;
    await handle.close();
    await runtime.close();
    const sent = provider.requests[0]?.tools ?? [];

    expect(sent.length).toBeGreaterThan(10);
    expect(report.tools.map((t) => t.name)).toEqual(sent.map((d) => d.name));
    expect(report.tools.map((t) => t.definition)).toEqual(JSON.parse(JSON.stringify(sent)));
    expect(report.tools.map((t) => t.name)).toContain('ask_human_input');
    expect(report.tools.map((t) => t.name)).not.toContain('flood');
  });

  it('lists the knowledge tools with the definitions a run gives them', async () => {
    const path = configFile(`harness:
  knowledge: {enabled: true, read_tool: true, top_k: 7, directory: ${join(dir, 'kb')}}
`);
    const r = await info(path, '--json');
    expect(r.code).toBe(EXIT.ok);
    const report = JSON.parse(r.out) as InfoReport;
    const listed = report.tools.filter((t) => t.name.startsWith('knowledge_'));
    const run = prepareRunKnowledge(parseConfigForMode({ path }, 'run').harness.knowledge, { cwd: dir, env: {} });
    if (run === undefined) throw new Error('expected knowledge');
    run.reader.close();
    expect(listed.map((t) => t.name)).toEqual(['knowledge_search', 'knowledge_enumerate', 'knowledge_read']);
    expect(listed.map((t) => t.definition)).toEqual(JSON.parse(JSON.stringify(run.tools.map((t) => t.definition(false)))));
  });

  it('lists source kind, plain description, tags, gate and deferral per tool', async () => {
    const r = await info(
      configFile(`harness:\n  human_in_the_loop: {enabled: true}\n  confirm_tags: [impact:rw, impact:none]\n`),
      '--json',
    );
    const report = JSON.parse(r.out) as InfoReport;
    const rm = report.tools.find((t) => t.name === 'stream_rm');
    expect(rm).toMatchObject({
      source: 'application',
      kind: 'application',
      description: 'Removes a stream',
      tags: ['ai:destructive', 'impact:rw'],
      gated: true,
      trigger: 'impact:rw',
      deferred: true,
    });
    expect(report.tools.find((t) => t.name === 'deep_inner_leaf')?.deferred).toBe(false);
    expect(report.filtered).toEqual([{ name: 'secret', source: 'application', reason: 'denied', detail: 'tagged ai:deny' }]);
    expect(report.warnings).toContainEqual({ key: 'harness.confirm_tags', message: expect.stringContaining('"impact:none"') as string });
    expect(report.warnings).toContainEqual({ key: 'application_path', message: expect.stringContaining('ai:bogus') as string });
    expect(report.globalFlags).toEqual([
      { name: 'context', help: 'The connection context to use', exposed: false, required: false },
      { name: 'trace', help: 'Trace every request', exposed: false, required: false },
    ]);
  });

  it('prints the table, filtered tools with --all, warnings and global flags', async () => {
    const path = configFile('global_flags: [trace]\n');
    const plain = await info(path);
    expect(plain.code).toBe(EXIT.ok);
    expect(plain.out).toMatch(/Tools \(11\)/);
    expect(plain.out).toMatch(/stream_purge\s+application\s+yes \(ai:confirm\)\s+no\s+Purges a stream\s+impact:rw, ai:confirm/);
    expect(plain.out).toContain('1 tool filtered out; list them with --all');
    expect(plain.out).toContain('  --trace [exposed]  Trace every request');
    expect(plain.err).toContain('warning: application_path: tool "deep_inner_leaf" carries ai:bogus');
    const all = await info(path, '--all');
    expect(all.out).toMatch(/Filtered tools \(1\)\n\s+Tool\s+Source\s+Reason\s+Detail\n\s+secret\s+application\s+denied\s+tagged ai:deny/);
  });

  it('prints application text without control sequences', async () => {
    const io = captureIo({ ...env, FIXTURE_MODE: 'escape' });
    expect(await runCli(['info', '--config', configFile('')], io)).toBe(EXIT.ok);
    expect(io.stdout()).toMatch(/env\s+application\s+no\s+no\s+Prints its environment\s+ai:read_only, eviltag/);
    expect(io.stdout().includes('\u001b') || io.stdout().includes('\u0007')).toBe(false);
  });

  it('warns that every definition is sent when tool search is switched off', async () => {
    const path = join(dir, 'nosearch.yaml');
    writeFileSync(
      path,
      `identity: x\napplication_path: ${app}\nsystem_prompt: x\nllm:\n  model: m\n  no_tool_search: true\nharness:\n  human_in_the_loop: {enabled: true}\n`,
    );
    const report = JSON.parse((await info(path, '--json')).out) as InfoReport;
    expect(report.tools.every((t) => !t.deferred)).toBe(true);
    expect(report.warnings).toContainEqual({
      key: 'llm.no_tool_search',
      message: expect.stringContaining('every definition is sent') as string,
    });
  });

  it('fails with the key to change for a bad global flag and a load error for a broken application', async () => {
    const bad = await info(configFile('global_flags: [contxt]\n'));
    expect(bad.code).toBe(EXIT.config);
    expect(bad.err).toContain('global_flags: "contxt" is not a global flag of the application; choose from context, trace');
    const io = captureIo({ ...env, FIXTURE_MODE: 'no-schema' });
    expect(await runCli(['info', '--config', configFile('')], io)).toBe(EXIT.error);
    expect(io.stderr()).toMatch(/rebuild the application with a current fisk/);
    expect(io.stdout()).toBe('');
  });

  it('reports no tools and no global flags without an application', async () => {
    const path = join(dir, 'noapp.yaml');
    writeFileSync(path, 'system_prompt: x\nllm: {model: m}\n');
    const report = JSON.parse((await info(path, '--json')).out) as InfoReport;
    expect(report.tools).toEqual([]);
    expect(report.globalFlags).toBeNull();
  });
  it('shows a setting left empty as unset, not as a blank', async () => {
    const path = join(dir, 'nomodel.yaml');
    writeFileSync(path, 'system_prompt: x\n');
    const r = await info(path);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^ {2}llm\.model +\(unset\) {2}\[default\]$/m);
  });
  it('says which endpoint a run calls and whether it finds its key, never the key', async () => {
    const path = join(dir, 'endpoint.yaml');
    writeFileSync(path, 'system_prompt: x\nllm: {model: m}\n');
    const bare = await info(path);
    expect(bare.out).toContain(
      '  Endpoint     https://api.anthropic.com (default)\n  API key      missing: fisk run needs ANTHROPIC_API_KEY exported\n',
    );
    const keyed = captureIo({ ...env, ANTHROPIC_API_KEY: 'sk-ant-secret-value' });
    await runCli(['info', '--config', path, '--json'], keyed);
    expect(keyed.stdout()).not.toContain('sk-ant-secret-value');
    const model = (JSON.parse(keyed.stdout()) as InfoReport).model;
    expect(model?.endpoint).toEqual({ url: 'https://api.anthropic.com', from: 'default' });
    expect(model?.apiKey).toEqual({ variable: 'ANTHROPIC_API_KEY', state: 'set' });
    // a server on this machine needs no key; the provider's variable beats the file
    const local = join(dir, 'local.yaml');
    writeFileSync(local, 'system_prompt: x\nllm: {provider: openai-chat, model: m, base_url: "http://127.0.0.1:11434/v1"}\n');
    expect((await info(local)).out).toContain(
      '  Endpoint     http://127.0.0.1:11434/v1 (llm.base_url)\n  API key      none needed: the endpoint is this machine (OPENAI_API_KEY is not set)\n',
    );
    const overridden = captureIo({ ...env, OPENAI_BASE_URL: 'https://llm.example.com/v1' });
    await runCli(['info', '--config', local], overridden);
    expect(overridden.stdout()).toContain(
      '  Endpoint     https://llm.example.com/v1 (OPENAI_BASE_URL)\n  API key      missing: fisk run needs OPENAI_API_KEY exported\n',
    );
  });
  it('lists a configuration naming an unknown provider, warning that a run refuses it', async () => {
    const path = join(dir, 'typo.yaml');
    writeFileSync(path, 'system_prompt: x\nllm: {provider: antropic, model: m}\n');
    const r = await info(path);
    expect(r.code).toBe(0);
    expect(r.out).toContain('Tool search  unknown (provider "antropic" is not available)');
    expect(r.err).toContain(
      'warning: llm.provider: unknown provider "antropic": known providers are anthropic, openai, openai-chat; fisk run refuses it',
    );
  });
});

describe('fisk info Slack', () => {
  it('shows the Slack settings and which variables hold the tokens, never their values', async () => {
    const path = configFile(`expose:\n  agent:\n    slack: {channels: [C0A, C0B], workers: 3}\n`);
    const io = captureIo({ ...env, SLACK_BOT_TOKEN: 'xoxb-secret-value-1234' });
    expect(await runCli(['info', '--config', path], io)).toBe(EXIT.ok);
    const out = io.stdout();
    expect(out).toMatch(/\nSlack\n {2}Connection +socket mode/);
    expect(out).toMatch(/Channels +C0A, C0B/);
    expect(out).toMatch(/Threads at once +3/);
    expect(out).toMatch(/Web API +Slack's own/);
    expect(out).toMatch(/Approvers +requester \(only the person whose message started the turn\)/);
    expect(out).toMatch(/App token +SLACK_APP_TOKEN \(not set: fisk serve will refuse to start\)/);
    expect(out).toMatch(/Bot token +SLACK_BOT_TOKEN \(set\)/);
    expect(out + io.stderr()).not.toContain('xoxb-secret-value-1234');
    const json = captureIo(env);
    expect(await runCli(['info', '--config', path, '--json'], json)).toBe(EXIT.ok);
    expect((JSON.parse(json.stdout()) as InfoReport).slack?.map((r) => r.label)).toEqual([
      'Connection',
      'Web API',
      'Channels',
      'Threads at once',
      'Approvers',
      'App token',
      'Bot token',
    ]);
    // where the base comes from, and the approvers as listed
    const routed = configFile(
      `expose:\n  agent:\n    slack: {channels: [C0A], api_url: 'https://slack-gov.example.com/api', approvers: [UBOSS]}\n`,
    );
    const io2 = captureIo({ ...env, SLACK_API_URL: 'http://127.0.0.1:7777/api/' });
    expect(await runCli(['info', '--config', routed], io2)).toBe(EXIT.ok);
    expect(io2.stdout()).toMatch(/Web API +http:\/\/127\.0\.0\.1:7777\/api\/ \(from SLACK_API_URL\)/);
    expect(io2.stdout()).toMatch(/Approvers +UBOSS/);
  });

  it('has no Slack section without expose.agent.slack', async () => {
    const r = await info(configFile(''));
    expect(r.out).not.toMatch(/\nSlack\n/);
  });
});
