/**
 * A2A over HTTP end to end: the built `fisk serve` with `expose.agent.a2a_http`, driven by the
 * `@a2a-js/sdk` client on loopback, the model scripted by the fake model server. The card, a
 * blocking send, a stream, a question answered by the caller, a cancel, a retried message, the
 * bearer token (refused without it and with a wrong one, kept from tools and logs) and a drain.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClientFactory } from '@a2a-js/sdk/client';
import type { Client } from '@a2a-js/sdk/client';
import { Role, TaskState } from '@a2a-js/sdk';
import type { Message, Part, SendMessageRequest, StreamResponse, Task } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { anthropicText, anthropicToolUse } from '../../src/agenttest/anthropic-wire.js';
import { startFakeModelServer } from '../../src/agenttest/fake-model-server.js';
import type { FakeModelServer, ReceivedRequest } from '../../src/agenttest/fake-model-server.js';
import { freePort } from '../../src/agenttest/nats-server.js';
import { ROOT, ensureBuilt, runFisk, startFisk, waitForErr } from '../cli/support.js';
import type { FiskProcess } from '../cli/support.js';

const FIXTURE = join(ROOT, 'test', 'fixtures', 'fisk-app.mjs');
const TOKEN = `tok-${randomUUID()}`;

let fake: FakeModelServer;
let home: string;
let env: Record<string, string>;

function yaml(port: number, extra = ''): string {
  return `identity: httpagent
application_path: ${FIXTURE}
system_prompt: You help.
llm:
  model: claude-sonnet-4-6
  no_tool_search: true
harness:
  human_in_the_loop: {enabled: true}
  confirm_tags: [ai:destructive]
expose:
  agent:
    a2a_http:
      port: ${port}
      auth_token_env: AGENT_TOKEN
${extra}`;
}

async function serve(port: number, extra = ''): Promise<FiskProcess> {
  writeFileSync(join(home, `agent-${port}.yaml`), yaml(port, extra));
  const f = startFisk(
    [
      'serve',
      '--config',
      `agent-${port}.yaml`,
      '--base-url',
      fake.url,
      '--api-key',
      'sk-test',
      '--state-dir',
      'state',
      '--workers',
      '2',
      '--verbose',
    ],
    home,
    { ...env, AGENT_TOKEN: TOKEN },
  );
  await waitForErr(f, 'Press Ctrl-C to stop');
  return f;
}

function userMessage(text: string, more: Partial<Message> = {}): Message {
  return {
    messageId: randomUUID(),
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
    ...more,
  };
}

function request(message: Message, returnImmediately = false): SendMessageRequest {
  return {
    tenant: '',
    message,
    configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately },
    metadata: undefined,
  };
}

const auth = { serviceParameters: { Authorization: `Bearer ${TOKEN}` } };

function asTask(r: Message | Task): Task {
  if (!('status' in r)) throw new Error(`expected a task, got a message: ${JSON.stringify(r)}`);
  return r;
}

function textOf(parts: readonly Part[] | undefined): string {
  return (parts ?? []).map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
}

/** The text of every tool result the model was sent, in order. */
function toolResults(requests: readonly ReceivedRequest[]): string[] {
  const out: string[] = [];
  for (const r of requests) {
    const body = r.body as { messages?: { content: unknown }[] } | undefined;
    const last = body?.messages?.[body.messages.length - 1];
    if (!Array.isArray(last?.content)) continue;
    for (const b of last.content as { type: string; content?: unknown }[])
      if (b.type === 'tool_result') out.push(JSON.stringify(b.content));
  }
  return out;
}

beforeAll(async () => {
  ensureBuilt();
  fake = await startFakeModelServer();
  home = mkdtempSync(join(tmpdir(), 'fisk-a2a-http-'));
  env = {
    PATH: process.env['PATH'] ?? '',
    HOME: home,
    XDG_CONFIG_HOME: join(home, 'xdg'),
    XDG_STATE_HOME: join(home, 'xdg-state'),
    NO_COLOR: '1',
  };
}, 180_000);

afterAll(async () => {
  await fake.close();
  rmSync(home, { recursive: true, force: true });
});

describe('fisk serve with expose.agent.a2a_http', () => {
  let worker: FiskProcess;
  let base: string;
  let client: Client;

  beforeAll(async () => {
    const port = await freePort();
    worker = await serve(port);
    base = `http://127.0.0.1:${port}/`;
    client = await new ClientFactory().createFromUrl(base);
  }, 60_000);

  afterAll(() => {
    if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
  });

  it('says where it listens in its banner', () => {
    expect(worker.stderr).toContain(`A2A over HTTP on ${base} (2 at once; bearer token from $AGENT_TOKEN)`);
    expect(worker.stderr).toContain(`Card:      ${base}.well-known/agent-card.json`);
  });

  it('serves the agent card: identity, the served tools as skills, bearer auth', async () => {
    const card = await client.getAgentCard();
    expect(card.name).toBe('httpagent');
    expect(card.capabilities?.streaming).toBe(true);
    expect(card.supportedInterfaces[0]).toMatchObject({ url: base, protocolBinding: 'JSONRPC', protocolVersion: '1.0' });
    const skills = card.skills.map((s) => s.id);
    expect(skills).toContain('echo');
    // a gated tool is never lent unattended, so it is not on the card
    expect(skills).not.toContain('stream_rm');
    expect(Object.keys(card.securitySchemes)).toEqual(['bearer']);
  });

  it("says each tool's tags once, in the skill's tags, and fisk discover prints them once", async () => {
    const card = await client.getAgentCard();
    const ls = card.skills.find((s) => s.id === 'stream_ls');
    expect(ls).toMatchObject({
      description: 'Lists streams\n\nLists every stream the account can see.',
      tags: ['tool', 'ai:read_only', 'ai:idempotent'],
    });
    expect(card.skills.find((s) => s.id === 'echo')?.tags).toEqual(['tool']);
    const shown = await runFisk(['discover', base], home, env);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(
      / {2}stream_ls\n {4}Lists streams\n {4}Lists every stream the account can see\.\n {4}tags: tool, ai:read_only, ai:idempotent\n/,
    );
    expect(shown.stdout).not.toMatch(/Tags:/);
  });

  it('answers a message with the completed task and its answer as an artifact', async () => {
    fake.reset();
    fake.reply(anthropicText('forty-two'));
    const task = asTask(await client.sendMessage(request(userMessage('What is the answer?')), auth));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(task.artifacts.find((a) => a.name === 'answer')?.parts)).toBe('forty-two');
    const again = await client.getTask({ tenant: '', id: task.id }, auth);
    expect(again.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('streams a task: status updates as it works, then the answer artifact, then completed', async () => {
    fake.reset();
    fake.reply(
      anthropicToolUse([{ id: 'toolu_1', name: 'echo', input: { first: 'hello' } }], { usage: { input_tokens: 100, output_tokens: 10 } }),
      anthropicText('echoed', { usage: { input_tokens: 120, output_tokens: 5 } }),
    );
    const events: StreamResponse[] = [];
    for await (const e of client.sendMessageStream(request(userMessage('Echo hello')), auth)) events.push(e);
    const kinds = events.map((e) => e.payload?.$case);
    expect(kinds[0]).toBe('task');
    const states = events.flatMap((e) => (e.payload?.$case === 'statusUpdate' ? [e.payload.value.status?.state] : []));
    expect(states).toContain(TaskState.TASK_STATE_WORKING);
    expect(states[states.length - 1]).toBe(TaskState.TASK_STATE_COMPLETED);
    const said = events.flatMap((e) => (e.payload?.$case === 'statusUpdate' ? [textOf(e.payload.value.status?.message?.parts)] : []));
    expect(said).toContain('calling echo');
    const artifactAt = kinds.indexOf('artifactUpdate');
    expect(artifactAt).toBeGreaterThan(kinds.indexOf('statusUpdate'));
    expect(artifactAt).toBeLessThan(kinds.length - 1);
    const art = events[artifactAt]?.payload;
    expect(art?.$case === 'artifactUpdate' ? textOf(art.value.artifact?.parts) : '').toBe('echoed');
    // the last status carries the run's token use, for a delegating caller to count
    const final = events[events.length - 1]?.payload;
    const usage =
      final?.$case === 'statusUpdate'
        ? (final.value.metadata?.['usage'] as { input_tokens: number; output_tokens: number } | undefined)
        : undefined;
    expect(usage).toEqual({ input_tokens: 220, output_tokens: 15 });
  });

  it('keeps the task going, and stored, when the caller of a stream goes away', async () => {
    fake.reset();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    fake.reply({ ...anthropicText('done without you'), until: held });
    const gone = new AbortController();
    let id = '';
    try {
      for await (const e of client.sendMessageStream(request(userMessage('Work while I am away')), { ...auth, signal: gone.signal })) {
        if (e.payload?.$case === 'task') id = e.payload.value.id;
        gone.abort();
      }
    } catch {
      // the aborted stream ends the loop
    }
    expect(id).not.toBe('');
    await vi.waitFor(() => expect(fake.requests).toHaveLength(1), { timeout: 30_000, interval: 20 });
    release();
    await vi.waitFor(
      async () => {
        const t = await client.getTask({ tenant: '', id }, auth);
        expect(t.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
        expect(textOf(t.artifacts[0]?.parts)).toBe('done without you');
      },
      { timeout: 30_000, interval: 50 },
    );
  });

  it('resubscribes to a running task: the current task first, then its updates to the end', async () => {
    fake.reset();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    fake.reply({ ...anthropicText('worth the wait'), until: held });
    const started = asTask(await client.sendMessage(request(userMessage('Take a while'), true), auth));
    await vi.waitFor(() => expect(fake.requests).toHaveLength(1), { timeout: 30_000, interval: 20 });
    const events: StreamResponse[] = [];
    for await (const e of client.resubscribeTask({ tenant: '', id: started.id }, auth)) {
      events.push(e);
      if (events.length === 1) release();
    }
    expect(events[0]?.payload?.$case).toBe('task');
    const last = events[events.length - 1]?.payload;
    expect(last?.$case === 'statusUpdate' ? last.value.status?.state : undefined).toBe(TaskState.TASK_STATE_COMPLETED);
    const art = events.find((e) => e.payload?.$case === 'artifactUpdate')?.payload;
    expect(art?.$case === 'artifactUpdate' ? textOf(art.value.artifact?.parts) : '').toBe('worth the wait');
  });

  it('streams a retried message from its first task rather than running it again', async () => {
    fake.reset();
    fake.reply(anthropicText('streamed once'));
    const message = userMessage('Stream once');
    const first = asTask(await client.sendMessage(request(message), auth));
    const again: StreamResponse[] = [];
    for await (const e of client.sendMessageStream(request(message), auth)) again.push(e);
    expect(again).toHaveLength(1);
    const only = again[0]?.payload;
    expect(only?.$case === 'task' ? [only.value.id, only.value.status?.state] : []).toEqual([first.id, TaskState.TASK_STATE_COMPLETED]);
    expect(fake.requests).toHaveLength(1);
  });

  it('puts a question to the caller as input-required, and the answer on the task lets the run go on', async () => {
    fake.reset();
    fake.reply(
      anthropicToolUse([{ id: 'toolu_q', name: 'ask_human_confirm', input: { question: 'Shout it?' } }]),
      anthropicText('shouted, as you agreed'),
    );
    const asked = asTask(await client.sendMessage(request(userMessage('Say it')), auth));
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(textOf(asked.status?.message?.parts)).toContain('Shout it?');
    const done = asTask(await client.sendMessage(request(userMessage('yes', { taskId: asked.id, contextId: asked.contextId })), auth));
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(done.artifacts.find((a) => a.name === 'answer')?.parts)).toBe('shouted, as you agreed');
    expect(toolResults(fake.requests).join('\n')).toMatch(/yes|true|confirmed/iu);
  });

  it('asks the caller at the confirm gate, and runs the gated call once approved', async () => {
    fake.reset();
    fake.reply(anthropicToolUse([{ id: 'toolu_g', name: 'stream_rm', input: { stream: 'ORDERS' } }]), anthropicText('removed'));
    const asked = asTask(await client.sendMessage(request(userMessage('Remove the stream')), auth));
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(textOf(asked.status?.message?.parts)).toMatch(/^Approve this call\? .*stream rm/u);
    const done = asTask(await client.sendMessage(request(userMessage('once', { taskId: asked.id })), auth));
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(toolResults(fake.requests).join('\n')).toContain('ORDERS');
  });

  it('refuses a further message on a task that asked nothing', async () => {
    fake.reset();
    fake.reply(anthropicText('plain'));
    const task = asTask(await client.sendMessage(request(userMessage('Plain')), auth));
    await expect(client.sendMessage(request(userMessage('more', { taskId: task.id })), auth)).rejects.toThrow(/terminal state/u);
    await expect(client.sendMessage(request(userMessage('more', { taskId: randomUUID() })), auth)).rejects.toThrow(/not found/iu);
  });

  it('continues the conversation in a further task of the same context, one task at a time', async () => {
    fake.reset();
    fake.reply(
      anthropicToolUse([{ id: 'toolu_c', name: 'ask_human_confirm', input: { question: 'Blue?' } }]),
      anthropicText('blue it is'),
      anthropicText('you chose blue'),
    );
    const first = asTask(await client.sendMessage(request(userMessage('Pick a colour')), auth));
    expect(first.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    // the conversation's task is waiting for its answer: a second task in it is refused
    await expect(client.sendMessage(request(userMessage('Something else', { contextId: first.contextId })), auth)).rejects.toThrow(
      /has a task still open/u,
    );
    const answered = asTask(await client.sendMessage(request(userMessage('yes', { taskId: first.id })), auth));
    expect(answered.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const second = asTask(
      await client.sendMessage(request(userMessage('Which colour did I choose?', { contextId: first.contextId })), auth),
    );
    expect(second.id).not.toBe(first.id);
    expect(second.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(second.artifacts[0]?.parts)).toBe('you chose blue');
    // the model saw the first task's exchange before the further prompt
    const sent = JSON.stringify(fake.requests[2]?.body);
    expect(sent).toContain('Pick a colour');
    expect(sent).toContain('blue it is');
    expect(sent).toContain('Which colour did I choose?');
  });

  it('cancels a running task: its tool is stopped and the task ends canceled', async () => {
    fake.reset();
    fake.reply(anthropicToolUse([{ id: 'toolu_s', name: 'sleep', input: { seconds: '600' } }]), anthropicText('never'));
    const started = asTask(await client.sendMessage(request(userMessage('Sleep'), true), auth));
    await vi.waitFor(
      async () => {
        const t = await client.getTask({ tenant: '', id: started.id }, auth);
        expect(textOf(t.status?.message?.parts)).toBe('calling sleep');
      },
      { timeout: 30_000, interval: 50 },
    );
    const cancelled = await client.cancelTask({ tenant: '', id: started.id, metadata: undefined }, auth);
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect((await client.getTask({ tenant: '', id: started.id }, auth)).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it('answers a retried message (the same message id) with the first task, running it once', async () => {
    fake.reset();
    fake.reply(anthropicText('only once'));
    const message = userMessage('Once please');
    const first = asTask(await client.sendMessage(request(message), auth));
    const second = asTask(await client.sendMessage(request(message), auth));
    expect(second.id).toBe(first.id);
    expect(second.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(fake.requests).toHaveLength(1);
  });

  it('refuses a call without the token, and with a wrong one', async () => {
    await expect(client.sendMessage(request(userMessage('hi')))).rejects.toThrow(/401|unauthori[sz]ed/iu);
    await expect(client.sendMessage(request(userMessage('hi')), { serviceParameters: { Authorization: 'Bearer wrong' } })).rejects.toThrow(
      /401|unauthori[sz]ed/iu,
    );
    const raw = await fetch(base, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } }),
    });
    expect(raw.status).toBe(401);
    expect(raw.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('keeps the token from tool subprocesses and from the log', async () => {
    fake.reset();
    fake.reply(anthropicToolUse([{ id: 'toolu_e', name: 'env', input: {} }]), anthropicText('looked'));
    const task = asTask(await client.sendMessage(request(userMessage('Show your environment')), auth));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const results = toolResults(fake.requests).join('\n');
    expect(results).toContain('PATH');
    expect(results).not.toContain('AGENT_TOKEN');
    expect(results).not.toContain(TOKEN);
    expect(worker.stderr).not.toContain(TOKEN);
  });

  it('refuses a task that came through this agent already, before running anything', async () => {
    fake.reset();
    const looped = { ...request(userMessage('Round again')), metadata: { 'fisk-ai/hops': ['planner', 'httpagent'] } };
    await expect(client.sendMessage(looped, auth)).rejects.toThrow(/agent httpagent refuses this task: .*go round in a circle/u);
    const deep = { ...request(userMessage('Too deep')), metadata: { 'fisk-ai/hops': ['a', 'b', 'c', 'd'] } };
    await expect(client.sendMessage(deep, auth)).rejects.toThrow(/the most a delegation chain may hold/u);
    const viaHeader = await fetch(base, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'a2a-version': '1.0',
        authorization: `Bearer ${TOKEN}`,
        'fisk-hops': 'planner,httpagent',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 3,
        method: 'SendMessage',
        params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hi' }] } },
      }),
    });
    expect(JSON.stringify(await viaHeader.json())).toMatch(/go round in a circle/u);
    expect(fake.requests).toHaveLength(0);
  });

  it('hands a task delegated by fisk run (remote_agents with url) to a served run, and the answer back', async () => {
    fake.reset();
    writeFileSync(
      join(home, 'caller.yaml'),
      `identity: caller\nsystem_prompt: You delegate.\nllm:\n  model: claude-sonnet-4-6\n  no_tool_search: true\nremote_agents:\n  - name: httpagent\n    alias: helper\n    url: ${base}\n    headers: {Authorization: "Bearer \${AGENT_TOKEN}"}\n`,
    );
    fake.reply(
      anthropicToolUse([{ id: 'toolu_d', name: 'delegate_helper', input: { task: 'What is six times seven?' } }]),
      anthropicText('forty-two, from the peer'),
      anthropicText('the helper says forty-two'),
    );
    const r = await runFisk(['run', '--config', 'caller.yaml', '--base-url', fake.url, '--api-key', 'sk-test', 'Ask the helper'], home, {
      ...env,
      AGENT_TOKEN: TOKEN,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('the helper says forty-two\n');
    // the served run was asked the task, and the caller's model was given its answer as data
    expect(JSON.stringify(fake.requests[1]?.body)).toContain('What is six times seven?');
    const delegated = toolResults(fake.requests).join('\n');
    expect(delegated).toContain('forty-two, from the peer');
    expect(delegated).toContain('delegated-answer');
    expect(r.stderr).not.toContain(TOKEN);
  });

  it('answers the v0.3 method names too', async () => {
    fake.reset();
    fake.reply(anthropicText('old and new'));
    const res = await fetch(base, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'message/send',
        params: { message: { kind: 'message', role: 'user', messageId: randomUUID(), parts: [{ kind: 'text', text: 'hi' }] } },
      }),
    });
    const body = (await res.json()) as { result?: { kind: string; status: { state: string }; artifacts: { parts: { text: string }[] }[] } };
    expect(body.result?.status.state).toBe('completed');
    expect(body.result?.artifacts[0]?.parts[0]?.text).toBe('old and new');
  });
});

describe('draining an A2A HTTP worker', () => {
  it('lets the task in flight finish, refuses new ones, and exits', async () => {
    const port = await freePort();
    const worker = await serve(port);
    try {
      const client = await new ClientFactory().createFromUrl(`http://127.0.0.1:${port}/`);
      fake.reset();
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      fake.reply(anthropicToolUse([{ id: 'toolu_d', name: 'ask_human_confirm', input: { question: 'Still there?' } }]));
      const asking = asTask(await client.sendMessage(request(userMessage('Ask me')), auth));
      expect(asking.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      fake.reply({ ...anthropicText('finished anyway'), until: held });
      const running = client.sendMessage(request(userMessage('Take your time')), auth);
      await vi.waitFor(() => expect(fake.requests).toHaveLength(2), { timeout: 30_000, interval: 20 });
      worker.child.kill('SIGINT');
      await waitForErr(worker, 'draining');
      await expect(client.sendMessage(request(userMessage('One more')), auth)).rejects.toThrow(/shutting down/u);
      // the question nobody answered was given up: that task failed, saying why
      await vi.waitFor(
        async () => {
          const given = await client.getTask({ tenant: '', id: asking.id }, auth);
          expect(given.status?.state).toBe(TaskState.TASK_STATE_FAILED);
          expect(textOf(given.status?.message?.parts)).toMatch(/shutting down/u);
        },
        { timeout: 30_000, interval: 50 },
      );
      release();
      const task = asTask(await running);
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(await worker.exited).toBe(0);
    } finally {
      if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
    }
  }, 60_000);
});

describe('an A2A HTTP agent with a knowledge base and a short question window', () => {
  let worker: FiskProcess;
  let client: Client;

  beforeAll(async () => {
    const port = await freePort();
    mkdirSync(join(home, 'docs'), { recursive: true });
    writeFileSync(join(home, 'docs', 'retention.md'), '# Retention\n\nBackups are kept for thirty days, then deleted.\n');
    const knowledge = [
      '  knowledge:',
      '    enabled: true',
      '    paths: [docs]',
      '    citations:',
      "      - pattern: '^docs/(.+)\\.md$'",
      "        replace: 'https://docs.example/$1'",
      '',
    ].join('\n');
    const config = yaml(port, '      question_timeout: 300ms\n').replace('expose:\n', () => `${knowledge}expose:\n`);
    writeFileSync(join(home, `agent-${port}.yaml`), config);
    const indexed = await runFisk(['knowledge', 'index', '--config', `agent-${port}.yaml`], home, env);
    expect(indexed.code, indexed.stderr).toBe(0);
    worker = startFisk(
      ['serve', '--config', `agent-${port}.yaml`, '--base-url', fake.url, '--api-key', 'sk-test', '--state-dir', 'state'],
      home,
      { ...env, AGENT_TOKEN: TOKEN },
    );
    await waitForErr(worker, 'Press Ctrl-C to stop');
    client = await new ClientFactory().createFromUrl(`http://127.0.0.1:${port}/`);
  }, 60_000);

  afterAll(() => {
    if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
  });

  it('returns the knowledge passages the answer cites as the citations artifact', async () => {
    fake.reset();
    fake.reply(anthropicToolUse([{ id: 'toolu_k', name: 'knowledge_search', input: { query: 'backups kept' } }]), (req) => {
      const ref = /docs\/retention\.md#\d+/u.exec(req.bodyText)?.[0] ?? 'none';
      return anthropicText(`Thirty days (${ref}).`);
    });
    const task = asTask(await client.sendMessage(request(userMessage('How long are backups kept?')), auth));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(task.artifacts.find((a) => a.name === 'answer')?.parts)).toMatch(/^Thirty days \(docs\/retention\.md#0\)\.$/u);
    const citations = task.artifacts.find((a) => a.name === 'citations');
    expect(textOf(citations?.parts)).toBe('docs/retention.md#0 (Retention) https://docs.example/retention');
    const data = citations?.parts.find((p) => p.content?.$case === 'data')?.content;
    expect(data?.$case === 'data' ? data.value : undefined).toEqual({
      citations: [{ ref: 'docs/retention.md#0', section: 'Retention', url: 'https://docs.example/retention' }],
    });
  });

  it('fails a task whose question goes unanswered past question_timeout, saying so', async () => {
    fake.reset();
    fake.reply(anthropicToolUse([{ id: 'toolu_t', name: 'ask_human_confirm', input: { question: 'Anyone?' } }]));
    const asked = asTask(await client.sendMessage(request(userMessage('Ask and wait')), auth));
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    await vi.waitFor(
      async () => {
        const t = await client.getTask({ tenant: '', id: asked.id }, auth);
        expect(t.status?.state).toBe(TaskState.TASK_STATE_FAILED);
        expect(textOf(t.status?.message?.parts)).toMatch(/^the run stopped: .*\(session a2a-http-[0-9a-f]{32}\); send the task again$/u);
      },
      { timeout: 30_000, interval: 50 },
    );
    // the task ended: an answer that comes too late is refused
    await expect(client.sendMessage(request(userMessage('yes', { taskId: asked.id })), auth)).rejects.toThrow(/terminal state/u);
  });
});

describe('A2A HTTP configuration errors', () => {
  it('refuses to listen off loopback without a token, naming the key', async () => {
    writeFileSync(
      join(home, 'open.yaml'),
      `identity: open\nllm: {model: claude-sonnet-4-6}\nexpose:\n  agent:\n    a2a_http: {address: 0.0.0.0, port: 8999}\n`,
    );
    const r = await runFisk(['serve', '--config', 'open.yaml', '--api-key', 'k'], home, env);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('expose.agent.a2a_http.auth_token_env');
    expect(r.stderr).toContain('0.0.0.0');
  });

  it('refuses a token variable that is not set, naming it', async () => {
    const port = await freePort();
    writeFileSync(join(home, 'unset.yaml'), yaml(port));
    const r = await runFisk(['serve', '--config', 'unset.yaml', '--api-key', 'k', '--base-url', fake.url], home, env);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('AGENT_TOKEN');
    expect(r.stderr).toContain('expose.agent.a2a_http.auth_token_env');
  });

  it('refuses a token shorter than 16 characters, as fisk mcp does, without printing it', async () => {
    const port = await freePort();
    writeFileSync(join(home, 'short.yaml'), yaml(port));
    const r = await runFisk(['serve', '--config', 'short.yaml', '--api-key', 'k', '--base-url', fake.url], home, {
      ...env,
      AGENT_TOKEN: 'short-secret',
    });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('AGENT_TOKEN (named by expose.agent.a2a_http.auth_token_env) holds a token shorter than 16 characters');
    expect(r.stderr).not.toContain('short-secret');
  });

  it('refuses a block without a port', async () => {
    writeFileSync(join(home, 'noport.yaml'), `identity: noport\nllm: {model: claude-sonnet-4-6}\nexpose:\n  agent:\n    a2a_http: {}\n`);
    const r = await runFisk(['serve', '--config', 'noport.yaml', '--api-key', 'k'], home, env);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('expose.agent.a2a_http.port');
  });
});
