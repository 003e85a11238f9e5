/**
 * The agent loop against the OpenAI-compatible wire formats (Responses and Chat Completions),
 * through the official SDK, with the fixture application as real child processes.
 */
import { resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAgent } from '../../src/agent/run-agent.js';
import type { RunOptions } from '../../src/agent/run-agent.js';
import { startFakeModelServer } from '../../src/agenttest/fake-model-server.js';
import type { FakeModelServer, FakeReply } from '../../src/agenttest/fake-model-server.js';
import { chatCompletion, openaiFunctionCallItem, openaiResponse, openaiText } from '../../src/agenttest/openai-wire.js';
import { parseConfigForMode } from '../../src/config/index.js';
import { newProvider } from '../../src/llm/providers.js';
import { applicationLoadOptions } from '../../src/toolkit/load.js';
import { resolveRunTools } from '../../src/toolkit/run-tools.js';
import { PublishedToolSetSource } from '../../src/toolkit/tool-set.js';
import type { ApprovalDecision, ApprovalRequest, Prompter } from '../../src/toolkit/tool.js';
import { answerOf } from '../../src/agent/outcome.js';
import { settingsFromConfig } from '../../src/agent/settings.js';

const FIXTURE = resolve(import.meta.dirname, '../fixtures/fisk-app.mjs');

let fake: FakeModelServer;
beforeEach(async () => {
  fake = await startFakeModelServer();
});
afterEach(async () => {
  await fake.close();
});

const approver = (decisions: ApprovalDecision[]): Prompter & { asked: ApprovalRequest[] } => {
  const asked: ApprovalRequest[] = [];
  return {
    asked,
    canPrompt: () => true,
    approve: (r) => {
      asked.push(r);
      return Promise.resolve(decisions.shift() ?? 'decline');
    },
    confirm: () => Promise.resolve(false),
    select: () => Promise.resolve(null),
    input: () => Promise.resolve(null),
  };
};

interface Wire {
  readonly provider: 'openai' | 'openai-chat';
  readonly calls: (calls: { id: string; name: string; args: unknown }[]) => FakeReply;
  readonly text: (t: string) => FakeReply;
}

const WIRES: Wire[] = [
  {
    provider: 'openai',
    calls: (calls) => openaiResponse(calls.map((c) => openaiFunctionCallItem(c.id, c.name, c.args))),
    text: (t) => openaiText(t),
  },
  {
    provider: 'openai-chat',
    calls: (calls) => chatCompletion(null, { tool_calls: calls.map((c) => ({ id: c.id, name: c.name, arguments: c.args })) }),
    text: (t) => chatCompletion(t),
  },
];

async function options(wire: Wire, extra: Partial<RunOptions>): Promise<RunOptions> {
  const config = parseConfigForMode(
    {
      text: `identity: e2e\napplication_path: ${FIXTURE}\nsystem_prompt: You manage streams.\nharness:\n  confirm_tags: [impact:rw]\nllm:\n  provider: ${wire.provider}\n  model: gpt-fake-1\n`,
    },
    'run',
  );
  const provider = newProvider(wire.provider, { baseUrl: fake.url, apiKey: 'sk-e2e', callTimeoutMs: 10_000, maxRetries: 0, env: {} });
  const app = applicationLoadOptions(config, { PATH: process.env['PATH'] });
  const tools = await resolveRunTools({
    ...(app === undefined ? {} : { application: app }),
    sources: [],
    confirmTags: config.harness.confirmTags,
    deferral: { noToolSearch: true, providerToolSearch: false },
  });
  return {
    settings: settingsFromConfig(config),
    provider,
    tools: new PublishedToolSetSource(tools.toolSet),
    prompt: 'tidy the streams',
    ...extra,
  };
}

describe.each(WIRES)('the loop against the $provider wire', (wire) => {
  it('runs an approved gated command, declines another, and answers', async () => {
    fake.reply(
      wire.calls([
        { id: 'call_purge', name: 'stream_purge', args: { stream: 'orders' } },
        { id: 'call_rm', name: 'stream_rm', args: { stream: 'audit', force: true } },
      ]),
      wire.text('Purged orders; audit stays.'),
    );
    const prompter = approver(['once', 'decline']);
    const out = await runAgent(await options(wire, { prompter }));
    expect(out.status).toBe('completed');
    expect(answerOf(out)).toBe('Purged orders; audit stays.');
    expect(prompter.asked.map((a) => a.tool)).toEqual(['stream_purge', 'stream_rm']);
    const second = fake.requests[1]?.bodyText ?? '';
    expect(second).toContain('call_purge');
    expect(second).toContain('stream purge -- orders');
    expect(second).toContain('\\"allowed\\":false');
    expect(out.counters.toolCallsByKind.application).toBe(2);
  });

  it('redacts PII in tool output before the model receives it', async () => {
    fake.reply(wire.calls([{ id: 'call_env', name: 'echo', args: { first: 'x', label: 'ops@corp.example.org' } }]), wire.text('done'));
    await runAgent(await options(wire, { prompt: 'call +44 20 7946 0958 about it' }));
    const sent = fake.requests.map((r) => r.bodyText).join('\n');
    expect(sent).not.toContain('+44 20 7946 0958');
    expect(sent).toContain('[PHONE-REDACTED]');
    expect(sent).toContain('--label=[EMAIL-REDACTED]');
  });
});
