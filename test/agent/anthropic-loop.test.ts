/**
 * The agent loop end to end: the fixture application as real child processes, the official
 * Anthropic SDK talking to the fake Messages server, and the tool set chosen by the same
 * selection `fisk run` uses.
 */
import { settingsFromConfig } from '../../src/agent/settings.js';
import { resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAgent } from '../../src/agent/run-agent.js';
import type { RunOptions } from '../../src/agent/run-agent.js';
import { EventLog } from '../../src/agent/events.js';
import { MemoryJournal } from '../../src/agent/journal.js';
import { anthropicMessage, anthropicText, anthropicToolUse } from '../../src/agenttest/anthropic-wire.js';
import { startFakeModelServer } from '../../src/agenttest/fake-model-server.js';
import type { FakeModelServer } from '../../src/agenttest/fake-model-server.js';
import { parseConfigForMode } from '../../src/config/index.js';
import type { Config } from '../../src/config/index.js';
import { newProvider } from '../../src/llm/providers.js';
import { applicationLoadOptions } from '../../src/toolkit/load.js';
import { resolveRunTools } from '../../src/toolkit/run-tools.js';
import { PublishedToolSetSource } from '../../src/toolkit/tool-set.js';
import type { ApprovalDecision, ApprovalRequest, Prompter } from '../../src/toolkit/tool.js';
import { answerOf, errorOf, messageOf } from '../../src/agent/outcome.js';

const FIXTURE = resolve(import.meta.dirname, '../fixtures/fisk-app.mjs');

let fake: FakeModelServer;
beforeEach(async () => {
  fake = await startFakeModelServer();
});
afterEach(async () => {
  await fake.close();
});

function config(extra = ''): Config {
  return parseConfigForMode(
    {
      text: `identity: e2e\napplication_path: ${FIXTURE}\nsystem_prompt: You manage streams.\nharness:\n  confirm_tags: [impact:rw]\nllm:\n  model: claude-fake-1\n${extra}`,
    },
    'run',
  );
}

class Approver implements Prompter {
  readonly asked: ApprovalRequest[] = [];
  constructor(private readonly decisions: ApprovalDecision[]) {}
  canPrompt(): boolean {
    return true;
  }
  approve(request: ApprovalRequest): Promise<ApprovalDecision> {
    this.asked.push(request);
    return Promise.resolve(this.decisions.shift() ?? 'decline');
  }
  confirm(): Promise<boolean> {
    return Promise.resolve(false);
  }
  select(): Promise<string | null> {
    return Promise.resolve(null);
  }
  input(): Promise<string | null> {
    return Promise.resolve(null);
  }
}

async function options(cfg: Config, extra: Partial<RunOptions> = {}): Promise<RunOptions> {
  const provider = newProvider('anthropic', { baseUrl: fake.url, apiKey: 'sk-e2e', callTimeoutMs: 10_000, maxRetries: 0, env: {} });
  const app = applicationLoadOptions(cfg, { PATH: process.env['PATH'] });
  const tools = await resolveRunTools({
    ...(app === undefined ? {} : { application: app }),
    sources: [],
    confirmTags: cfg.harness.confirmTags,
    deferral: { noToolSearch: true, providerToolSearch: false },
  });
  return {
    settings: settingsFromConfig(cfg),
    provider,
    tools: new PublishedToolSetSource(tools.toolSet),
    prompt: 'tidy the streams',
    ...extra,
  };
}

interface WireResult {
  type: string;
  tool_use_id?: string;
  content?: unknown;
  is_error?: boolean;
}

function toolResults(index: number): WireResult[] {
  const body = fake.requests[index]?.body as { messages: { role: string; content: WireResult[] }[] };
  const last = body.messages.at(-1);
  return (last?.content ?? []).filter((b) => b.type === 'tool_result');
}

function text(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((c: { text?: string }) => c.text ?? '').join('');
  return '';
}

describe('the loop against the Anthropic wire', () => {
  it('runs an approved gated command, declines another, and answers', async () => {
    fake.reply(
      anthropicToolUse([
        { id: 'toolu_purge', name: 'stream_purge', input: { stream: 'orders' } },
        { id: 'toolu_rm', name: 'stream_rm', input: { stream: 'audit', force: true } },
      ]),
      anthropicText('Purged orders; removing audit was declined.', { usage: { input_tokens: 50, output_tokens: 9 } }),
    );
    const approver = new Approver(['once', 'decline']);
    const events = new EventLog();
    const journal = new MemoryJournal();
    const out = await runAgent(await options(config(), { prompter: approver, events, journal }));

    expect(out.status).toBe('completed');
    expect(answerOf(out)).toBe('Purged orders; removing audit was declined.');
    expect(approver.asked.map((a) => [a.tool, a.trigger])).toEqual([
      ['stream_purge', 'ai:confirm'],
      ['stream_rm', 'impact:rw'],
    ]);
    expect(approver.asked[0]?.commandLine).toBe('stream purge -- orders');

    const [purge, rm] = toolResults(1);
    expect(purge?.tool_use_id).toBe('toolu_purge');
    const envelope = JSON.parse(text(purge?.content)) as { command: string; exit_code: number; output: string };
    expect(envelope.exit_code).toBe(0);
    expect(JSON.parse(envelope.output)).toEqual({ path: ['stream', 'purge'], flags: [], positionals: ['orders'] });
    expect(rm?.is_error).toBeFalsy();
    expect(JSON.parse(text(rm?.content))).toMatchObject({ allowed: false });

    expect(out.counters.toolCallsByKind.application).toBe(2);
    expect(journal.entries().map((e) => e.type)).toEqual(['assistant', 'tool_result', 'tool_result', 'assistant', 'terminal']);
    expect(events.ofType('tool_result')[0]?.exec?.command).toBe('stream purge -- orders');
  });

  it('never dispatches a tool call cut at max_tokens', async () => {
    fake.reply(
      anthropicMessage([{ type: 'tool_use', id: 'toolu_cut', caller: { type: 'direct' }, name: 'stream_ls', input: {} }], {
        stop_reason: 'max_tokens',
      }),
      anthropicText('retrying later'),
    );
    const events = new EventLog();
    const out = await runAgent(await options(config(), { events }));
    expect(out.status).toBe('completed');
    const [r] = toolResults(1);
    expect(r?.is_error).toBe(true);
    expect(text(r?.content)).toContain('cut off at the output token limit');
    expect(events.ofType('tool_result').some((e) => e.exec !== undefined)).toBe(false);
  });

  it('stops the run when PreToolUse rewrites a call to a tool that does not exist', async () => {
    fake.reply(anthropicToolUse([{ id: 'toolu_1', name: 'stream_ls', input: {} }]));
    const events = new EventLog();
    const out = await runAgent(
      await options(config(), { events, hooks: { preToolUse: () => ({ action: 'rewrite', name: 'stream_nuke', input: '{}' }) } }),
    );
    expect(out.status).toBe('error');
    expect(errorOf(out)?.code).toBe('hook');
    expect(messageOf(out)).toContain('stream_nuke');
    expect(fake.requests).toHaveLength(1);
    expect(events.ofType('tool_result')).toHaveLength(0);
  });

  it('stops at the token budget with a summary rather than an exception', async () => {
    fake.reply(
      anthropicToolUse([{ id: 'toolu_1', name: 'stream_ls', input: {} }], {
        usage: { input_tokens: 300, cache_read_input_tokens: 500, output_tokens: 250 },
      }),
    );
    const out = await runAgent(await options(config('  budget: { max_tokens: 1000 }\n')));
    expect(out.status).toBe('budget');
    expect(out.counters.usage).toMatchObject({ input: 300, cacheRead: 500, output: 250 });
    expect(messageOf(out)).toContain('1050 tokens processed');
    expect(fake.requests).toHaveLength(1);
  });

  it('redacts PII from the prompt and tool output before the model receives them', async () => {
    fake.reply(
      anthropicToolUse([{ id: 'toolu_1', name: 'echo', input: { first: 'x', label: 'card 4111 1111 1111 1111' } }]),
      anthropicText('done'),
    );
    await runAgent(await options(config(), { prompt: 'ask jane.doe@example.com about stream orders' }));
    const all = fake.requests.map((r) => r.bodyText).join('\n');
    expect(all).not.toContain('jane.doe@example.com');
    expect(all).toContain('[EMAIL-REDACTED]');
    // the model's own argument reached the command as argv, but the command's output echoing it was redacted
    const [r] = toolResults(1);
    const { output } = JSON.parse(text(r?.content)) as { output: string };
    expect(output).toContain('[CREDIT-CARD-REDACTED]');
    expect(output).not.toContain('4111 1111 1111 1111');
  });

  it('turns an exception inside the run into a crashed outcome, RunEnd once, stack to the sink only', async () => {
    fake.reply(anthropicToolUse([{ id: 'toolu_1', name: 'stream_ls', input: {} }]));
    const events = new EventLog();
    const ends: string[] = [];
    const out = await runAgent(
      await options(config(), {
        events,
        hooks: {
          postToolUse: () => {
            throw new RangeError('post hook bug');
          },
          runEnd: (o) => void ends.push(o.status),
        },
      }),
    );
    expect(out.status).toBe('crashed');
    expect(ends).toEqual(['crashed']);
    expect(errorOf(out)?.message).not.toContain('post hook bug');
    expect(events.ofType('crash')[0]?.stack).toContain('RangeError: post hook bug');
  });
});
