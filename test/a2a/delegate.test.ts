/**
 * Delegation tools end to end, through the built CLI: `fisk run` hands a task to an A2A agent
 * built from `@a2a-js/sdk`'s server classes on loopback, and to a fisk agent served over a
 * private nats-server, as a scripted model asks; the peers' questions are declined without a
 * terminal, their headers stay secret, and a delegation chain that comes back round is refused.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { delegate, HOPS_HEADER } from '../../src/a2a/index.js';
import { createTransport } from '../../src/a2a/registry.js';
import { anthropicText, anthropicToolUse } from '../../src/agenttest/anthropic-wire.js';
import { startFakeModelServer } from '../../src/agenttest/fake-model-server.js';
import type { FakeModelServer } from '../../src/agenttest/fake-model-server.js';
import { startNatsServer } from '../../src/agenttest/nats-server.js';
import type { NatsServer } from '../../src/agenttest/nats-server.js';
import { connect } from '@nats-io/transport-node';
import { ensureBuilt, ROOT, runFisk, startFisk, waitForErr } from '../cli/support.js';
import type { FiskProcess } from '../cli/support.js';
import { startTestA2aAgent } from '../support/a2a-agent.js';
import type { TestA2aAgent } from '../support/a2a-agent.js';

const FIXTURE = join(ROOT, 'test', 'fixtures', 'fisk-app.mjs');
const TOKEN = 'plan-secret-token-4242';
const LITERAL_KEY = 'literal-key-written-in-yaml-7731';

let nats: NatsServer;
let fake: FakeModelServer;
let home: string;
let env: Record<string, string>;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? files(join(dir, f)) : [join(dir, f)]));
}

const bodyText = (i: number): string => JSON.stringify(fake.requests[i]?.body);

beforeAll(async () => {
  ensureBuilt();
  nats = await startNatsServer();
  fake = await startFakeModelServer();
  home = mkdtempSync(join(tmpdir(), 'fisk-delegate-'));
  mkdirSync(join(home, 'xdg', 'nats', 'context'), { recursive: true });
  writeFileSync(join(home, 'xdg', 'nats', 'context', 'lab.json'), JSON.stringify({ url: nats.url }));
  env = {
    PATH: process.env['PATH'] ?? '',
    HOME: home,
    XDG_CONFIG_HOME: join(home, 'xdg'),
    XDG_STATE_HOME: join(home, 'xdg-state'),
    NO_COLOR: '1',
    ANTHROPIC_API_KEY: 'sk-test',
    ANTHROPIC_BASE_URL: fake.url,
    PLAN_TOKEN: TOKEN,
    FIXTURE_ENVLOG: join(home, 'envlog'),
  };
}, 180_000);
afterAll(async () => {
  await fake.close();
  await nats.stop();
  rmSync(home, { recursive: true, force: true });
});

describe('delegating to an A2A agent over HTTP', () => {
  let planner: TestA2aAgent;
  let asking: TestA2aAgent;
  let keyed: TestA2aAgent;
  beforeAll(async () => {
    planner = await startTestA2aAgent({ usage: { input_tokens: 120, output_tokens: 30 }, echoHeader: 'authorization' });
    asking = await startTestA2aAgent({ name: 'asker', question: 'Which region?' });
    keyed = await startTestA2aAgent({ name: 'keyed', echoHeader: 'x-api-key' });
    const entry = (name: string, url: string): string =>
      `  - name: ${name}\n    alias: ${name}\n    url: ${url}\n    headers: {Authorization: "Bearer \${PLAN_TOKEN}"}\n`;
    const literal = `  - name: keyed\n    url: ${keyed.url}\n    headers: {X-Api-Key: "${LITERAL_KEY}"}\n`;
    writeFileSync(
      join(home, 'caller.yaml'),
      `identity: caller\napplication_path: ${FIXTURE}\nsystem_prompt: You delegate.\nllm:\n  model: claude-sonnet-4-6\n  no_tool_search: true\nremote_agents:\n${entry('planner', planner.url)}${entry('asker', asking.url)}${literal}`,
    );
  });
  afterAll(async () => {
    await planner.close();
    await asking.close();
    await keyed.close();
  });

  it('runs the task on the peer, shows its progress, returns its answer fenced, counts its tokens apart, and keeps the header secret', async () => {
    fake.reset();
    fake.reply(
      anthropicToolUse([{ id: 'toolu_1', name: 'echo', input: { first: 'hello' } }]),
      anthropicToolUse([{ id: 'toolu_2', name: 'delegate_planner', input: { task: 'plan the db upgrade' } }]),
      anthropicText('the plan is in'),
    );
    const result = await runFisk(['run', '--config', 'caller.yaml', '--tool-output', '--checkpoint', 'plan', 'it'], home, env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('the plan is in\n');
    // the tool the model was offered is described by the peer's card
    const tools = JSON.stringify((fake.requests[0]?.body as { tools?: unknown }).tools);
    expect(tools).toContain('delegate_planner');
    expect(tools).toContain('Plans maintenance windows for the fleet.');
    // the answer went back to the model fenced as the peer's data, the header it echoed redacted
    const answer = bodyText(2);
    expect(answer).toContain('<delegated-answer agent=\\"planner\\" state=\\"completed\\">');
    expect(answer).toContain('done: plan the db upgrade');
    expect(answer).toContain('runbook: https://docs.example/runbook');
    expect(answer).toContain('[PLAN_TOKEN-REDACTED]');
    expect(answer).not.toContain(TOKEN);
    // the peer got the header, and the chain
    expect(planner.requests.at(-1)?.authorization).toBe(`Bearer ${TOKEN}`);
    expect(planner.requests.at(-1)?.['fisk-hops']).toBe('caller');
    // progress on the caller's surface, the peer's tokens apart from the run's own
    expect(result.stderr).toMatch(/planner: working: reading the task/);
    expect(result.stderr).toMatch(/Run summary: .*delegated_tokens=120\/30/);
    expect(result.stderr + result.stdout).not.toContain(TOKEN);
    // nothing journaled holds it, and the application's command never saw the variable
    const journaled = files(join(home, 'xdg-state'))
      .map((f) => readFileSync(f, 'utf8'))
      .join('\n');
    expect(journaled).toContain('done: plan the db upgrade');
    expect(journaled).not.toContain(TOKEN);
    const envlog = readFileSync(join(home, 'envlog'), 'utf8');
    expect(envlog).toContain('FIXTURE_ENVLOG');
    expect(envlog).not.toContain('PLAN_TOKEN');
  });

  it('keeps a header value written literally in agent.yaml as secret as one read from a variable', async () => {
    fake.reset();
    fake.reply(
      anthropicToolUse([{ id: 'toolu_k', name: 'delegate_keyed', input: { task: 'show the key' } }]),
      anthropicText('keyed answered'),
    );
    const r = await runFisk(['run', '--config', 'caller.yaml', '--tool-output', '--checkpoint', 'keyed', 'it'], home, env);
    expect(r.code, r.stderr).toBe(0);
    // the peer got the literal value, and the model saw only its marker
    expect(keyed.requests.at(-1)?.['x-api-key']).toBe(LITERAL_KEY);
    expect(bodyText(1)).toContain('done: show the key');
    expect(bodyText(1)).toContain('[remote_agents[2].headers.X-Api-Key-REDACTED]');
    expect(bodyText(1)).not.toContain(LITERAL_KEY);
    expect(r.stderr).toContain('[remote_agents[2].headers.X-Api-Key-REDACTED]');
    expect(r.stderr + r.stdout).not.toContain(LITERAL_KEY);
    const journaled = files(join(home, 'xdg-state'))
      .map((f) => readFileSync(f, 'utf8'))
      .join('\n');
    expect(journaled).toContain('done: show the key');
    expect(journaled).not.toContain(LITERAL_KEY);
  });

  it("counts a peer's tokens from before a resume in the resumed run's summary and, with count_budget, its budget", async () => {
    writeFileSync(
      join(home, 'budget.yaml'),
      `identity: caller\napplication_path: ${FIXTURE}\nsystem_prompt: You delegate.\nllm:\n  model: claude-sonnet-4-6\n  no_tool_search: true\n  budget: {max_tokens: 200}\nremote_agents:\n  - name: planner\n    url: ${planner.url}\n    count_budget: true\n`,
    );
    fake.reset();
    fake.reply(
      anthropicToolUse([{ id: 'toolu_b1', name: 'delegate_planner', input: { task: 'plan the budget' } }], {
        usage: { input_tokens: 1, output_tokens: 1 },
      }),
      { status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message: 'the model refused this once' } } },
    );
    const first = await runFisk(['run', '--config', 'budget.yaml', '--checkpoint', '--name', 'budgeted', 'plan'], home, env);
    expect(first.code, first.stderr).not.toBe(0);
    expect(first.stderr).toMatch(/delegated_tokens=120\/30/);
    // the resumed part spends 60 of its own: only with the 150 delegated before does it reach 200
    fake.reset();
    fake.reply(
      anthropicToolUse([{ id: 'toolu_b2', name: 'echo', input: { first: 'again' } }], { usage: { input_tokens: 60, output_tokens: 0 } }),
      anthropicText('over budget'),
    );
    const resumed = await runFisk(['run', '--config', 'budget.yaml', '--resume', 'budgeted'], home, env);
    expect(resumed.stderr).toMatch(/Run summary: .*delegated_tokens=120\/30/);
    expect(resumed.stderr).toContain('llm.budget.max_tokens');
    expect(fake.requests).toHaveLength(1);
  });

  it("declines the peer's question without a terminal, says so, and the peer carries on", async () => {
    fake.reset();
    fake.reply(
      anthropicToolUse([{ id: 'toolu_3', name: 'delegate_asker', input: { task: 'plan it' } }]),
      anthropicText('asked and answered'),
    );
    const r = await runFisk(['run', '--config', 'caller.yaml', 'go'], home, env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('asker: asked "Which region?": declined, nobody here can answer');
    expect(bodyText(1)).toContain('done with the answer: Declined');
  });

  it('lists the delegation tools in fisk info with their transport and gate', async () => {
    writeFileSync(
      join(home, 'gated.yaml'),
      `identity: caller\nsystem_prompt: s\nllm: {model: m}\nharness: {confirm_tags: [delegate]}\nremote_agents:\n  - name: planner\n    url: ${planner.url}\n    confirm: true\n`,
    );
    const r = await runFisk(['info', '--config', 'gated.yaml'], home, env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Delegation tools \(1;/);
    expect(r.stdout).toMatch(
      /delegate_planner\s+planner\s+a2a-http\s+yes \(remote_agents\[0\]\.confirm\)\s+http:\/\/127\.0\.0\.1:\d+\/\.well-known\/agent-card\.json/,
    );
  });

  it("prints an A2A agent card with fisk discover URL, as it prints a NATS peer's", async () => {
    const r = await runFisk(['discover', planner.url], home, env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Agent card at http:\/\/127\.0\.0\.1:\d+\/\.well-known\/agent-card\.json\n/);
    expect(r.stdout).toMatch(/ {2}Agent: {7}planner\n/);
    expect(r.stdout).toContain('  Description: Plans maintenance windows for the fleet.');
    expect(r.stdout).toMatch(/Protocols: {3}A2A 1\.0 JSONRPC at http:\/\/127\.0\.0\.1/);
    expect(r.stdout).toContain('  Auth:        none declared\n');
    expect(r.stdout).toContain('Skills (1):');
    expect(r.stdout).toContain('    Finds a maintenance window that suits every team.');
    const gone = await runFisk(['discover', 'http://127.0.0.1:9/'], home, env);
    expect(gone.code).not.toBe(0);
    expect(gone.stderr).toMatch(/cannot discover the A2A agent at http:\/\/127\.0\.0\.1:9\/: cannot read the agent card at/);
    const plain = await runFisk(['discover', 'http://planner.example/'], home, env);
    expect(plain.code).toBe(2);
    expect(plain.stderr).toMatch(/uses http to a host that is not this machine/);
  });

  it('stops a run whose header names an unset variable as a configuration error naming the header, and fisk info warns', async () => {
    fake.reset();
    writeFileSync(
      join(home, 'unset.yaml'),
      `identity: caller\nsystem_prompt: s\nllm: {model: claude-sonnet-4-6}\nremote_agents:\n  - name: planner\n    url: ${planner.url}\n    headers: {Authorization: "Bearer \${FISK_TEST_UNSET_PLAN_TOKEN}"}\n`,
    );
    const r = await runFisk(['run', '--config', 'unset.yaml', 'go'], home, env);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(
      'remote_agents[0].headers.Authorization: refers to ${FISK_TEST_UNSET_PLAN_TOKEN}, which is not set in the environment',
    );
    expect(r.stderr).not.toContain('check remote_agents[0].url');
    expect(fake.requests).toHaveLength(0);
    const info = await runFisk(['info', '--config', 'unset.yaml'], home, env);
    expect(info.code, info.stderr).toBe(0);
    expect(info.stdout + info.stderr).toContain(
      'delegate_planner is not listed: remote_agents[0].headers.Authorization: refers to ${FISK_TEST_UNSET_PLAN_TOKEN}',
    );
  });

  it('stops a run before the model is called when the card cannot be read, naming the entry and the URL', async () => {
    fake.reset();
    writeFileSync(
      join(home, 'gone.yaml'),
      'identity: caller\nsystem_prompt: s\nllm: {model: claude-sonnet-4-6}\nremote_agents:\n  - name: gone\n    url: http://127.0.0.1:9/\n',
    );
    const r = await runFisk(['run', '--config', 'gone.yaml', 'go'], home, env);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(
      /remote_agents\[0\] \(gone\): cannot read the agent card at http:\/\/127\.0\.0\.1:9\/\.well-known\/agent-card\.json/,
    );
    expect(r.stderr).toContain('check remote_agents[0].url');
    expect(fake.requests).toHaveLength(0);
  });
});

describe('delegating to a fisk agent over NATS', () => {
  const serving: FiskProcess[] = [];
  const serve = async (name: string, extra: string): Promise<FiskProcess> => {
    writeFileSync(
      join(home, `${name}.yaml`),
      `identity: ${name}\nsystem_prompt: You help.\nnats_context: lab\nllm:\n  model: claude-sonnet-4-6\n  no_tool_search: true\nharness:\n  human_in_the_loop: {enabled: true}\nexpose:\n  agent:\n    a2a:\n      prompts: true\n      elicitation: true\n${extra}`,
    );
    const f = startFisk(['serve', '--config', `${name}.yaml`, '--state-dir', `state-${name}`, '--workers', '2'], home, env);
    serving.push(f);
    await waitForErr(f, 'Press Ctrl-C to stop');
    return f;
  };
  let first: FiskProcess;
  beforeAll(async () => {
    // peers are discovered when they start, so a circle is only made by a restart: helper finds
    // the first worker, a second worker finds helper, and the first worker goes
    first = await serve('worker', '');
    await serve('helper', 'remote_agents:\n  - name: worker\n');
    await serve('worker', 'remote_agents:\n  - name: helper\n');
    first.child.kill('SIGKILL');
    await first.exited;
    writeFileSync(
      join(home, 'nats-caller.yaml'),
      'identity: caller\nsystem_prompt: You delegate.\nnats_context: lab\nllm:\n  model: claude-sonnet-4-6\n  no_tool_search: true\nremote_agents:\n  - name: worker\n',
    );
  }, 120_000);
  afterAll(() => {
    for (const f of serving) if (f.child.exitCode === null) f.child.kill('SIGKILL');
  });

  it('runs the task on the served agent, declines its question without a terminal, and returns its answer and tokens', async () => {
    fake.reset();
    fake.reply(
      anthropicToolUse([{ id: 'toolu_1', name: 'delegate_worker', input: { task: 'check the disks' } }]),
      anthropicToolUse([{ id: 'toolu_w1', name: 'ask_human_confirm', input: { question: 'Wipe them?' } }], {
        usage: { input_tokens: 300, output_tokens: 20 },
      }),
      anthropicText('the disks are fine', { usage: { input_tokens: 340, output_tokens: 9 } }),
      anthropicText('worker says the disks are fine'),
    );
    const r = await runFisk(['run', '--config', 'nats-caller.yaml', 'check', 'disks'], home, env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('worker says the disks are fine\n');
    expect(bodyText(1)).toContain('check the disks');
    // the question came back to the caller, who had nobody to ask
    expect(r.stderr).toMatch(/nobody can answer worker's confirm question here/);
    expect(bodyText(2)).toContain('confirmed\\":false');
    expect(bodyText(3)).toContain('<delegated-answer agent=\\"worker\\" state=\\"end_turn\\">');
    expect(bodyText(3)).toContain('the disks are fine');
    expect(r.stderr).toMatch(/worker: calling ask_human_confirm/);
    expect(r.stderr).toMatch(/Run summary: .*delegated_tokens=640\/29/);
  });

  it('refuses a delegation that would come back round to an agent already in the chain', async () => {
    fake.reset();
    fake.reply(
      anthropicToolUse([{ id: 'toolu_1', name: 'delegate_worker', input: { task: 'ask around' } }]),
      anthropicToolUse([{ id: 'toolu_w1', name: 'delegate_helper', input: { task: 'ask worker' } }]),
      anthropicToolUse([{ id: 'toolu_h1', name: 'delegate_worker', input: { task: 'back to you' } }]),
      anthropicText('helper could not ask worker'),
      anthropicText('worker heard from helper'),
      anthropicText('done asking around'),
    );
    const r = await runFisk(['run', '--config', 'nats-caller.yaml', 'ask', 'around'], home, env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('done asking around\n');
    // helper's model was told the circle was refused, and no request went back to worker
    expect(bodyText(3)).toContain('delegate_worker refused: worker is already in the delegation chain (caller → worker → helper)');
    expect(fake.requests).toHaveLength(6);
  });

  it('has the served agent refuse a request whose chain already holds it', async () => {
    const nc = await connect({ servers: nats.url });
    try {
      const transport = createTransport('nats', { connection: nc, timeoutMs: 10_000 });
      const end = await delegate(transport, 'outsider', 'worker', { prompt: 'loop', hops: ['worker', 'outsider'] });
      expect(end.protocol).toBe('io.choria.fisk-ai.v1.error');
      expect(end.protocol === 'io.choria.fisk-ai.v1.error' && end.code).toBe('cycle');
      expect(end.protocol === 'io.choria.fisk-ai.v1.error' && end.error).toMatch(
        /came through worker → outsider, which already holds worker/,
      );
      expect(HOPS_HEADER).toBe('Fisk-Hops');
    } finally {
      await nc.close();
    }
  });
});
