/**
 * The A2A HTTP delegation against an agent built from the SDK's own server classes on loopback:
 * the card becomes the tool description, the task runs to its answer, a question goes to the
 * prompter (or is declined), headers and the chain reach the peer, and a cycle is refused.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestA2aAgent } from '../../test/support/a2a-agent.js';
import type { TestA2aAgent } from '../../test/support/a2a-agent.js';
import type { RemoteAgentConfig } from '../config/types.js';
import type { Outcome, Prompter } from '../toolkit/tool.js';
import { A2aHttpPeer, cardUrl, DECLINED_ANSWER } from './a2a-http-peer.js';
import { chainRefusal, delegationTool } from './delegation.js';

function entry(url: string, over: Partial<RemoteAgentConfig> = {}): RemoteAgentConfig {
  return {
    name: 'planner',
    alias: 'plan',
    transport: 'a2a-http',
    url,
    headers: {},
    confirm: false,
    timeout: { text: '30s', ms: 30_000 },
    countBudget: false,
    ...over,
  };
}

function answering(answer: string | null): Prompter & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    canPrompt: () => true,
    approve: () => Promise.resolve('decline'),
    confirm: () => Promise.resolve(false),
    select: () => Promise.resolve(null),
    input: (q) => {
      asked.push(q);
      return Promise.resolve(answer);
    },
  };
}

async function call(
  agent: TestA2aAgent,
  input: unknown,
  deps: { prompter?: Prompter; chain?: readonly string[]; progress?: (t: string) => void } = {},
  over: Partial<RemoteAgentConfig> = {},
): Promise<Outcome> {
  const e = entry(agent.url, over);
  const peer = await A2aHttpPeer.open(e.name, e.url ?? '', { Authorization: 'Bearer sekrit-token-123' });
  const tool = delegationTool(e, 0, 'caller', peer, 'delegate_plan');
  return tool.execute(JSON.stringify(input), deps, new AbortController().signal);
}

describe('the A2A HTTP peer', () => {
  let plain: TestA2aAgent;
  let asking: TestA2aAgent;
  beforeAll(async () => {
    plain = await startTestA2aAgent({ usage: { input_tokens: 120, output_tokens: 30 } });
    asking = await startTestA2aAgent({ question: 'Which region?', usage: { input_tokens: 7, output_tokens: 3 } });
  });
  afterAll(async () => {
    await plain.close();
    await asking.close();
  });

  it('reads the card at the well-known path under a base URL, or the URL of a .json card itself', () => {
    expect(cardUrl('https://p.example/agents/').href).toBe('https://p.example/agents/.well-known/agent-card.json');
    expect(cardUrl('https://p.example').href).toBe('https://p.example/.well-known/agent-card.json');
    expect(cardUrl('https://p.example/cards/plan.json').href).toBe('https://p.example/cards/plan.json');
  });

  it('describes the tool from the card: description and skills', async () => {
    const peer = await A2aHttpPeer.open('planner', plain.url, {});
    expect(peer.description).toContain('Plans maintenance windows for the fleet.');
    expect(peer.description).toContain('- Plan a window: Finds a maintenance window that suits every team. (tags: planning)');
  });

  it('delegates the task and answers with the fenced answer, citations, usage; headers and the chain reach the peer', async () => {
    const lines: string[] = [];
    const first = plain.requests.length;
    const out = await call(plain, { task: 'plan the db upgrade' }, { chain: ['ops', 'caller'], progress: (t) => lines.push(t) });
    expect(out.status).toBe('completed');
    if (out.status !== 'completed') return;
    expect(out.isError).toBe(false);
    expect(out.output).toContain('<delegated-answer agent="plan" state="completed">');
    expect(out.output).toContain('done: plan the db upgrade');
    expect(out.output).toContain('- runbook: https://docs.example/runbook');
    expect(out.delegated).toEqual({ input: 120, output: 30, countsBudget: false });
    expect(lines.some((l) => l.startsWith('plan: working: reading the task'))).toBe(true);
    expect(plain.requests.slice(first).map((h) => h.authorization)).toEqual(
      plain.requests.slice(first).map(() => 'Bearer sekrit-token-123'),
    );
    expect(plain.requests.length - first).toBeGreaterThanOrEqual(2);
    expect(plain.requests.at(-1)?.['fisk-hops']).toBe('ops,caller');
    expect(plain.metadata.at(-1)?.['fisk-ai/hops']).toEqual(['ops', 'caller']);
  });

  it("sends the entry's headers to the card's own origin only, not to a service URL the card names elsewhere", async () => {
    const card = await (await fetch(new URL('.well-known/agent-card.json', plain.url))).text();
    const seen: (string | undefined)[] = [];
    const host = createServer((req, res) => {
      seen.push(req.headers.authorization);
      res.setHeader('content-type', 'application/json');
      res.end(card);
    });
    await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
    try {
      const e = entry(`http://127.0.0.1:${(host.address() as AddressInfo).port}/`);
      const peer = await A2aHttpPeer.open(e.name, e.url ?? '', { Authorization: 'Bearer sekrit-token-123' });
      const first = plain.requests.length;
      const out = await delegationTool(e, 0, 'caller', peer, 'delegate_plan').execute(
        JSON.stringify({ task: 'plan it' }),
        {},
        new AbortController().signal,
      );
      expect(out.status).toBe('completed');
      expect(seen).toContain('Bearer sekrit-token-123');
      expect(plain.requests.length).toBeGreaterThan(first);
      expect(plain.requests.slice(first).map((h) => h.authorization)).toEqual(plain.requests.slice(first).map(() => undefined));
    } finally {
      await new Promise<void>((resolve) => host.close(() => resolve()));
    }
  });

  it("puts the peer's question to the prompter and continues the same task with the answer", async () => {
    const prompter = answering('eu-west');
    const out = await call(asking, { task: 'plan it' }, { prompter });
    expect(prompter.asked).toEqual(['planner asks: Which region?']);
    expect(out.status === 'completed' && out.output).toContain('done with the answer: eu-west');
    expect(asking.texts.slice(-2)).toEqual(['plan it', 'eu-west']);
  });

  it('declines the question when nobody can answer, and says so to the peer', async () => {
    const lines: string[] = [];
    const out = await call(asking, { task: 'plan it' }, { progress: (t) => lines.push(t) });
    expect(asking.texts.at(-1)).toBe(DECLINED_ANSWER);
    expect(lines).toContain('plan: asked "Which region?": declined, nobody here can answer');
    expect(out.status === 'completed' && out.output).toContain('done with the answer: Declined');
  });

  it('refuses a delegation to an agent already in the chain, and past the depth limit, without calling it', async () => {
    const before = plain.texts.length;
    const out = await call(plain, { task: 'loop' }, { chain: ['planner', 'caller'] });
    expect(out.status === 'completed' && out.isError).toBe(true);
    expect(out.status === 'completed' && out.output).toMatch(
      /delegate_plan refused: planner is already in the delegation chain \(planner → caller\)/,
    );
    expect(plain.texts.length).toBe(before);
    expect(chainRefusal(['a', 'b', 'c', 'd'], ['e'])).toMatch(/most a delegation chain may hold \(4\)/);
    expect(chainRefusal(['a'], ['e'])).toBeUndefined();
  });

  it('refuses an empty task', async () => {
    const out = await call(plain, { task: '  ' });
    expect(out.status === 'completed' && out.output).toMatch(/needs a task/);
  });

  it('says clearly that an unreachable card could not be read, naming the URL', async () => {
    await expect(A2aHttpPeer.open('gone', 'http://127.0.0.1:9/', {})).rejects.toThrow(
      /cannot read the agent card at http:\/\/127\.0\.0\.1:9\/\.well-known\/agent-card\.json/,
    );
  });
});
