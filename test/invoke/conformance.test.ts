/**
 * The one invocation pipeline (`toolkit/invoke`) as each of its consumers meets it: the agent loop
 * (`runAgent` with a scripted model), `fisk mcp` (its server, called by the official MCP SDK client
 * over HTTP) and the a2a tool service (called by the a2a client over the in-process transport).
 * One table of cases; each row says what every consumer answers, word for word, or why a consumer
 * cannot meet the case at all. Where a surface words an answer its own way by design (whom a
 * denial came from, which setting a deadline names), the row says so beside the shared part.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import { A2aClient } from '../../src/a2a/client.js';
import { buildAgentCard } from '../../src/a2a/card.js';
import { InprocBus } from '../../src/a2a/inproc.js';
import { createTransport } from '../../src/a2a/registry.js';
import { startToolService } from '../../src/a2a/tool-service.js';
import { ScriptedProvider, textResponse, toolUseResponse } from '../../src/agenttest/scripted-provider.js';
import { runAgent } from '../../src/agent/run-agent.js';
import type { Hooks } from '../../src/agent/hooks.js';
import { ScriptedPrompter, sourceOf, testSettings } from '../../src/agent/test-support.js';
import type { ToolResultBlock } from '../../src/llm/types.js';
import { APPROVAL_FIELD } from '../../src/mcp/server/approval.js';
import { startMcpServer } from '../../src/mcp/server/http-server.js';
import type { RunningMcpServer } from '../../src/mcp/server/http-server.js';
import { connectClient, resultText } from '../../src/mcp/server/test-support.js';
import { newFuncTool } from '../../src/toolkit/functool/index.js';
import { denialOutput } from '../../src/toolkit/invoke/gate.js';
import { invalidArgumentsMessage, servedDenialReason, timeoutMessage, unknownToolMessage } from '../../src/toolkit/invoke/messages.js';
import type { InvokeWrapper } from '../../src/toolkit/invoke/types.js';
import type { ApprovalDecision, Tool } from '../../src/toolkit/tool.js';
import { notLoadedMessage } from '../../src/toolkit/tool-search.js';

const CONSUMERS = ['loop', 'mcp', 'a2a'] as const;
type Consumer = (typeof CONSUMERS)[number];

/** What a consumer answered the call with: a result, or (the loop alone) the end of the run. */
type Answer = { readonly text: string; readonly isError: boolean } | { readonly ended: string };

/** One case's setting, as each consumer is told it in its own terms. */
interface Setting {
  readonly tools: readonly Tool[];
  readonly call: { readonly name: string; readonly args: Record<string, unknown> };
  /** The loop's PreToolUse hook. */
  readonly hooks?: Hooks;
  /** The answer to the approval question: the loop's operator, the MCP client's elicitation. */
  readonly approval?: 'approve' | 'deny';
  /** The loop's journal reports the run taken over before the tool runs. */
  readonly takenOver?: boolean;
  /** A tool the loop holds deferred and the model has not loaded. */
  readonly notLoaded?: string;
  readonly timeoutMs?: number;
  readonly scrub?: (text: string) => string;
  /** Wrappers around every call, logging into the trail. */
  readonly wrappers?: readonly InvokeWrapper[];
}

/** What a case expects of one consumer: its answer, or why the consumer cannot express the case. */
type Expected = Answer | { readonly cannot: string };

interface Case extends Setting {
  readonly name: string;
  readonly expect: Readonly<Record<Consumer, Expected>>;
  /** The trail the wrappers and the tool left, in order: the same everywhere. */
  readonly trail?: readonly string[];
  /** Tools that must never have run. */
  readonly neverRan?: readonly string[];
}

/** The words each surface's deadline names, the one part of the timeout answer that differs. */
const TIMEOUT_KEY: Readonly<Record<Consumer, string>> = {
  loop: 'llm.budget.tool_timeout',
  mcp: 'expose.agent.mcp.tool_timeout',
  a2a: 'the served tool timeout',
};

const NO_HOOKS = 'a served call runs no PreToolUse hook: hooks belong to the run that embeds the loop, and a server has no run';
const NO_JOURNAL = 'a served call has no run journal, so nothing can take it over';
const NO_DEFERRAL = 'a serving surface lists every tool it serves; none is deferred behind tool search';
const NO_APPROVER = 'nobody can approve a call made over a2a: a gated tool is always refused there (the gate-deny row)';

/** What the tools and wrappers of the current case did, in order. */
const trail: string[] = [];
const SCHEMA = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } as const;

/** A tool answering `<name>: <text>`, recording that it ran. */
function echo(name: string, extra: Partial<Parameters<typeof newFuncTool>[0]> = {}): Tool {
  return newFuncTool({
    name,
    description: `The ${name} tool`,
    inputSchema: SCHEMA,
    handler: (input) => {
      trail.push(`ran ${name}`);
      return Promise.resolve({ status: 'completed', output: `${name}: ${String(input['text'])}`, isError: false });
    },
    ...extra,
  });
}

/** A tool that never answers until it is stopped. */
const stuck = newFuncTool({
  name: 'stuck',
  description: 'Never answers',
  inputSchema: { type: 'object', properties: {} },
  handler: (_input, call) => {
    trail.push('ran stuck');
    return new Promise((resolve) =>
      call.signal.addEventListener('abort', () => resolve({ status: 'completed', output: 'stopped', isError: true }), { once: true }),
    );
  },
});

const gated = (): Tool => echo('purge', { tags: ['ai:confirm'], confirm: { trigger: 'ai:confirm' } });
const SECRET = 'sk-live-0123456789abcdef';
const leaky = newFuncTool({
  name: 'leaky',
  description: 'Prints what it read',
  inputSchema: { type: 'object', properties: {} },
  handler: () => Promise.resolve({ status: 'completed', output: `read the key ${SECRET} from the file`, isError: false }),
});

/** A wrapper that logs its way in and out of a call. */
const wrapper =
  (label: string): InvokeWrapper =>
  async (call, next) => {
    trail.push(`${label} > ${call.name}`);
    const result = await next();
    trail.push(`${label} < ${result.kind}`);
    return result;
  };

const denial = (reason: string): string => denialOutput(reason);
const OPERATOR_DECLINED = 'the operator declined this call; the decision is final, so do not retry it or reach the same effect another way';

const CASES: readonly Case[] = [
  {
    name: 'an unknown tool',
    tools: [echo('say')],
    call: { name: 'nope', args: {} },
    expect: {
      loop: { text: unknownToolMessage('nope'), isError: true },
      mcp: { text: unknownToolMessage('nope'), isError: true },
      a2a: { text: unknownToolMessage('nope'), isError: true },
    },
  },
  {
    name: 'a tool not loaded yet',
    tools: [echo('say'), echo('later')],
    call: { name: 'later', args: { text: 'x' } },
    notLoaded: 'later',
    expect: { loop: { text: notLoadedMessage('later'), isError: true }, mcp: { cannot: NO_DEFERRAL }, a2a: { cannot: NO_DEFERRAL } },
    neverRan: ['later'],
  },
  {
    name: 'a call a hook denies',
    tools: [echo('say')],
    call: { name: 'say', args: { text: 'x' } },
    hooks: { preToolUse: () => ({ action: 'deny', reason: 'not on a Friday' }) },
    expect: { loop: { text: denial('not on a Friday'), isError: false }, mcp: { cannot: NO_HOOKS }, a2a: { cannot: NO_HOOKS } },
    neverRan: ['say'],
  },
  {
    name: 'a call a hook rewrites',
    tools: [echo('say'), echo('shout')],
    call: { name: 'say', args: { text: 'quiet' } },
    hooks: { preToolUse: () => ({ action: 'rewrite', name: 'shout', input: '{"text":"LOUD"}' }) },
    expect: { loop: { text: 'shout: LOUD', isError: false }, mcp: { cannot: NO_HOOKS }, a2a: { cannot: NO_HOOKS } },
    neverRan: ['say'],
  },
  {
    name: 'invalid arguments',
    tools: [echo('say')],
    call: { name: 'say', args: {} },
    expect: {
      loop: { text: invalidArgumentsMessage('say', 'missing required argument "text"', SCHEMA), isError: true },
      mcp: { text: invalidArgumentsMessage('say', 'missing required argument "text"', SCHEMA), isError: true },
      a2a: { text: invalidArgumentsMessage('say', 'missing required argument "text"', SCHEMA), isError: true },
    },
    neverRan: ['say'],
  },
  {
    name: 'a gated call approved',
    tools: [gated()],
    call: { name: 'purge', args: { text: 'archive' } },
    approval: 'approve',
    expect: {
      loop: { text: 'purge: archive', isError: false },
      mcp: { text: 'purge: archive', isError: false },
      a2a: { cannot: NO_APPROVER },
    },
  },
  {
    name: 'a gated call denied',
    tools: [gated()],
    call: { name: 'purge', args: { text: 'archive' } },
    approval: 'deny',
    // the same refusal body everywhere; whom the no came from, and whether a served client sees an
    // error, is each surface's own
    expect: {
      loop: { text: denial(OPERATOR_DECLINED), isError: false },
      mcp: { text: denial(servedDenialReason('the client declined the call', 'declined')), isError: true },
      a2a: {
        text: denial(servedDenialReason('this tool needs approval and nobody can approve a call made over a2a', 'unapprovable')),
        isError: true,
      },
    },
    neverRan: ['purge'],
  },
  {
    name: 'a run taken over before the tool runs',
    tools: [echo('say')],
    call: { name: 'say', args: { text: 'x' } },
    takenOver: true,
    expect: {
      loop: { ended: 'another runner took this run over; stopped before running a tool' },
      mcp: { cannot: NO_JOURNAL },
      a2a: { cannot: NO_JOURNAL },
    },
    neverRan: ['say'],
  },
  {
    name: 'a tool past its deadline',
    tools: [stuck],
    call: { name: 'stuck', args: {} },
    timeoutMs: 200,
    expect: {
      loop: { text: timeoutMessage('stuck', 200, TIMEOUT_KEY.loop), isError: true },
      mcp: { text: timeoutMessage('stuck', 200, TIMEOUT_KEY.mcp), isError: true },
      a2a: { text: timeoutMessage('stuck', 200, TIMEOUT_KEY.a2a), isError: true },
    },
  },
  {
    name: 'a secret in the output',
    tools: [leaky],
    call: { name: 'leaky', args: {} },
    scrub: (text) => text.replaceAll(SECRET, '[redacted]'),
    expect: {
      loop: { text: 'read the key [redacted] from the file', isError: false },
      mcp: { text: 'read the key [redacted] from the file', isError: false },
      a2a: { text: 'read the key [redacted] from the file', isError: false },
    },
  },
  {
    name: 'the wrappers, outermost first, around the whole call',
    tools: [echo('say')],
    call: { name: 'say', args: { text: 'x' } },
    wrappers: [wrapper('outer'), wrapper('inner')],
    expect: {
      loop: { text: 'say: x', isError: false },
      mcp: { text: 'say: x', isError: false },
      a2a: { text: 'say: x', isError: false },
    },
    trail: ['outer > say', 'inner > say', 'ran say', 'inner < answered', 'outer < answered'],
  },
  {
    name: 'the wrappers around a call refused before anything ran',
    tools: [echo('say')],
    call: { name: 'nope', args: {} },
    wrappers: [wrapper('outer'), wrapper('inner')],
    expect: {
      loop: { text: unknownToolMessage('nope'), isError: true },
      mcp: { text: unknownToolMessage('nope'), isError: true },
      a2a: { text: unknownToolMessage('nope'), isError: true },
    },
    trail: ['outer > nope', 'inner > nope', 'inner < answered', 'outer < answered'],
  },
];

/** Runs the case's call as a model would: the tool call, then whatever the run does with its answer. */
async function throughLoop(setting: Setting): Promise<Answer> {
  const provider = new ScriptedProvider([
    toolUseResponse([{ id: 'call-1', name: setting.call.name, input: setting.call.args }]),
    textResponse('done'),
  ]);
  const settings = testSettings(setting.timeoutMs === undefined ? '' : `  budget:\n    tool_timeout: ${setting.timeoutMs}ms\n`);
  const decisions: ApprovalDecision[] = setting.approval === 'approve' ? ['once'] : ['decline'];
  const notLoaded = setting.notLoaded;
  const out = await runAgent({
    settings,
    provider,
    tools: sourceOf(setting.tools),
    prompt: 'go',
    prompter: new ScriptedPrompter(decisions),
    ...(setting.hooks === undefined ? {} : { hooks: setting.hooks }),
    ...(setting.takenOver === true ? { journal: { append: () => Promise.resolve(), stillOwned: () => Promise.resolve(false) } } : {}),
    ...(notLoaded === undefined ? {} : { notCallable: (_set, name) => (name === notLoaded ? notLoadedMessage(name) : undefined) }),
    ...(setting.scrub === undefined ? {} : { scrub: setting.scrub }),
    ...(setting.wrappers === undefined ? {} : { toolWrappers: setting.wrappers }),
  });
  if (out.status === 'error') return { ended: out.error?.message ?? '' };
  const sent = provider.requests[1]?.messages.at(-1)?.content ?? [];
  const result = sent.find((b): b is ToolResultBlock => b.type === 'tool_result');
  if (result === undefined) throw new Error(`the loop sent no tool result; it ended ${out.status}`);
  return { text: result.content, isError: result.isError === true };
}

const closing: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
  trail.length = 0;
});

/** Calls the tool through `fisk mcp`'s server with the official SDK client, which answers the approval form. */
async function throughMcp(setting: Setting): Promise<Answer> {
  const server: RunningMcpServer = await startMcpServer({
    host: '127.0.0.1',
    port: 0,
    identity: { name: 'conformance', version: '1.0.0', instructions: '' },
    tools: setting.tools,
    confirmOverMcp: 'auto',
    maxConcurrentTools: 2,
    toolTimeoutMs: setting.timeoutMs ?? 30_000,
    ...(setting.scrub === undefined ? {} : { scrub: setting.scrub }),
    ...(setting.wrappers === undefined ? {} : { wrappers: setting.wrappers }),
  });
  closing.push(() => server.close());
  const approve = setting.approval === 'approve';
  const client: Client = await connectClient(server.url, () =>
    Promise.resolve(approve ? { action: 'accept', content: { [APPROVAL_FIELD]: true } } : { action: 'decline' }),
  );
  closing.push(() => client.close());
  const result = await client.callTool({ name: setting.call.name, arguments: setting.call.args });
  return { text: resultText(result), isError: result.isError === true };
}

/** Calls the tool through the a2a tool service, as a borrowing agent does. */
async function throughA2a(setting: Setting): Promise<Answer> {
  const bus = new InprocBus();
  const serving = createTransport('inproc', { bus });
  const service = await startToolService(serving, {
    identity: 'lender',
    card: buildAgentCard({ name: 'lender', version: '1', tools: [] }),
    tools: setting.tools,
    ...(setting.timeoutMs === undefined ? {} : { toolTimeoutMs: setting.timeoutMs }),
    ...(setting.scrub === undefined ? {} : { scrub: setting.scrub }),
    ...(setting.wrappers === undefined ? {} : { wrappers: setting.wrappers }),
  });
  closing.push(() => service.stop());
  const reply = await new A2aClient(createTransport('inproc', { bus }), 'borrower').callTool(
    'lender',
    setting.call.name,
    setting.call.args,
  );
  return { text: reply.output ?? '', isError: reply.is_error === true };
}

const THROUGH: Readonly<Record<Consumer, (setting: Setting) => Promise<Answer>>> = { loop: throughLoop, mcp: throughMcp, a2a: throughA2a };

describe.each(CONSUMERS)('the invocation pipeline through %s', (consumer) => {
  // a row a consumer cannot express says why in the table, and is no test here
  for (const c of CASES) {
    const expected = c.expect[consumer];
    if ('cannot' in expected) continue;
    it(c.name, async () => {
      const answer = await THROUGH[consumer](c);
      expect(answer).toEqual(expected);
      for (const name of c.neverRan ?? []) expect(trail, `${name} must not have run`).not.toContain(`ran ${name}`);
      if (c.trail !== undefined) expect(trail).toEqual(c.trail);
    });
  }
});

describe('the table of cases', () => {
  it('has every consumer answer every case, or say why it cannot', () => {
    const unexpressed = CASES.flatMap((c) =>
      CONSUMERS.filter((consumer) => 'cannot' in c.expect[consumer]).map((consumer) => `${consumer}: ${c.name}`),
    );
    // the loop meets every case; the served surfaces lack hooks, a journal, deferral, and (a2a) an approver
    expect(unexpressed).toEqual([
      'mcp: a tool not loaded yet',
      'a2a: a tool not loaded yet',
      'mcp: a call a hook denies',
      'a2a: a call a hook denies',
      'mcp: a call a hook rewrites',
      'a2a: a call a hook rewrites',
      'a2a: a gated call approved',
      'mcp: a run taken over before the tool runs',
      'a2a: a run taken over before the tool runs',
    ]);
  });
});
