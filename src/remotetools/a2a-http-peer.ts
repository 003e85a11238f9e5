/**
 * A peer speaking the A2A standard over HTTP, through `@a2a-js/sdk`'s client: its card is read
 * once when the runtime opens, and each delegation is one task, followed on the message stream
 * until it completes, fails or asks for input. A question (`input-required`) goes to this run's
 * prompter and the answer continues the same task; with nobody to ask it is declined, and the
 * peer is told so. Everything the peer says is untrusted: control sequences are stripped before
 * anyone sees it, and the answer is fenced as data by the tool.
 */
import { randomUUID } from 'node:crypto';
import { AGENT_CARD_PATH, Role, TaskState } from '@a2a-js/sdk';
import type { AgentCard, Message, Part, SendMessageRequest, StreamResponse } from '@a2a-js/sdk';
import { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory } from '@a2a-js/sdk/client';
import type { Client } from '@a2a-js/sdk/client';
import { headerSafeFetch } from '../util/header-safe-fetch.js';
import { cleanText } from '../util/terminal-text.js';
import type { DelegatePeer, DelegationRequest, DelegationResult } from './delegation.js';

/** The message and HTTP metadata key the delegation chain travels under. */
export const HOPS_METADATA_KEY = 'fisk-ai/hops';
/** The HTTP header carrying the same chain, comma separated, for a server that reads headers. */
export const HOPS_HEADER = 'Fisk-Hops';
/** The metadata key a peer reports its token usage under (`{input_tokens, output_tokens}`). */
export const USAGE_METADATA_KEY = 'usage';

/** Questions one task may ask before the delegation stops asking: a peer looping on input is a fault. */
const MAX_QUESTIONS = 16;
/** The longest answer kept from a peer, in characters. */
const MAX_ANSWER = 64 * 1024;
/** The words a declined question is answered with. */
export const DECLINED_ANSWER =
  'Declined: nobody on the calling side can answer questions now. Carry on without an answer if you can, or stop and say what you needed.';

/** The URL the card is read from: the configured URL itself when it names a `.json` file, else the well-known path under it. */
export function cardUrl(url: string): URL {
  const parsed = new URL(url);
  if (parsed.pathname.endsWith('.json')) return parsed;
  const base = parsed.href.endsWith('/') ? parsed.href : `${parsed.href}/`;
  return new URL(AGENT_CARD_PATH, base);
}

/**
 * A `fetch` that sends the entry's headers with the requests the SDK makes to the card's own
 * origin, and to nowhere else: a card may name a service URL on another host, and a redirect may
 * point anywhere, and what the operator gave this peer must reach this peer only.
 */
function fetchWith(headers: Readonly<Record<string, string>>, cardUrl: string): typeof fetch {
  const origin = new URL(cardUrl).origin;
  const safe = headerSafeFetch(Object.keys(headers));
  return (input, init) => {
    // the SDK passes URLs; a Request built elsewhere keeps its own headers and nothing is added
    if (input instanceof Request) return fetch(input, init);
    const merged = new Headers(init?.headers);
    if (new URL(input).origin === origin) for (const [k, v] of Object.entries(headers)) merged.set(k, v);
    return safe(input, { ...init, headers: merged });
  };
}

function textOf(parts: readonly Part[] | undefined): string {
  return (parts ?? [])
    .map((p) => (p.content?.$case === 'text' ? p.content.value : ''))
    .filter((t) => t !== '')
    .join('\n');
}

/** URLs and data-part citations a peer attached, as one line each. */
function citationsOf(parts: readonly Part[]): string[] {
  const out: string[] = [];
  for (const p of parts) {
    if (p.content?.$case === 'url') out.push(cleanText(p.filename === '' ? p.content.value : `${p.filename}: ${p.content.value}`));
    if (p.content?.$case === 'data') {
      const value = p.content.value as unknown;
      const cited = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)['citations'] : undefined;
      if (Array.isArray(cited)) for (const c of cited.slice(0, 50)) out.push(cleanText(typeof c === 'string' ? c : JSON.stringify(c)));
    }
  }
  return out;
}

function usageOf(metadata: unknown): { input: number; output: number } | undefined {
  if (typeof metadata !== 'object' || metadata === null) return undefined;
  const u = (metadata as Record<string, unknown>)[USAGE_METADATA_KEY];
  if (typeof u !== 'object' || u === null) return undefined;
  const rec = u as Record<string, unknown>;
  const n = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.floor(v) : 0);
  return { input: n(rec['input_tokens'] ?? rec['inputTokens']), output: n(rec['output_tokens'] ?? rec['outputTokens']) };
}

function stateWord(state: TaskState): string {
  switch (state) {
    case TaskState.TASK_STATE_SUBMITTED:
      return 'submitted';
    case TaskState.TASK_STATE_WORKING:
      return 'working';
    case TaskState.TASK_STATE_COMPLETED:
      return 'completed';
    case TaskState.TASK_STATE_FAILED:
      return 'failed';
    case TaskState.TASK_STATE_CANCELED:
      return 'canceled';
    case TaskState.TASK_STATE_INPUT_REQUIRED:
      return 'input-required';
    case TaskState.TASK_STATE_REJECTED:
      return 'rejected';
    case TaskState.TASK_STATE_AUTH_REQUIRED:
      return 'auth-required';
    case TaskState.TASK_STATE_UNSPECIFIED:
    case TaskState.UNRECOGNIZED:
      return 'unknown';
    default: {
      const never: never = state;
      return String(never);
    }
  }
}

/** What one stream of a task came to. */
interface Leg {
  taskId: string;
  contextId: string;
  state: TaskState | undefined;
  /** The text of the last status message (a question, an answer or a reason). */
  statusText: string;
  /** The text of the artifacts, in order. */
  artifacts: string[];
  citations: string[];
  usage: { input: number; output: number } | undefined;
  /** A peer that answered with a message and no task. */
  direct: string | undefined;
}

function newMessage(text: string, chain: readonly string[], leg: Pick<Leg, 'taskId' | 'contextId'> | undefined): Message {
  return {
    messageId: randomUUID(),
    contextId: leg?.contextId ?? '',
    taskId: leg?.taskId ?? '',
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
    metadata: { [HOPS_METADATA_KEY]: [...chain] },
    extensions: [],
    referenceTaskIds: [],
  };
}

/** The A2A HTTP peer of one `remote_agents` entry, its card read. */
export class A2aHttpPeer implements DelegatePeer {
  readonly transport = 'a2a-http' as const;
  readonly where: string;
  readonly names: readonly string[];
  readonly description: string;
  readonly card: AgentCard;
  readonly #client: Client;

  private constructor(where: string, names: readonly string[], card: AgentCard, client: Client) {
    this.where = where;
    this.names = names;
    this.card = card;
    this.description = describeCard(card);
    this.#client = client;
  }

  /** Reads the card at `url` (sending `headers`) and builds the client. Throws with the SDK's or fetch's reason. */
  static async open(name: string, url: string, headers: Readonly<Record<string, string>>): Promise<A2aHttpPeer> {
    const card = await readAgentCard(url, headers);
    const fetchImpl = fetchWith(headers, url);
    const factory = new ClientFactory({
      transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    });
    const client = await factory.createFromAgentCard(card);
    const names = [...new Set([name, cleanText(wordOf(card.name))].filter((n) => n !== ''))];
    return new A2aHttpPeer(cardUrl(url).href, names, card, client);
  }

  async delegate(request: DelegationRequest): Promise<DelegationResult> {
    let leg = await this.#leg(newMessage(request.task, request.chain, undefined), request);
    for (let asked = 0; leg.state === TaskState.TASK_STATE_INPUT_REQUIRED; asked++) {
      if (asked >= MAX_QUESTIONS) {
        await this.#cancel(leg.taskId);
        return {
          ok: false,
          text: `the agent asked ${MAX_QUESTIONS} questions without finishing; the task was cancelled`,
          citations: leg.citations,
          usage: leg.usage,
          state: 'canceled',
        };
      }
      const answer = await this.#answer(cleanText(leg.statusText), request);
      const next = await this.#leg(newMessage(answer, request.chain, leg), request);
      // a peer reports a task's usage so far, so the latest report stands
      leg = { ...next, citations: [...leg.citations, ...next.citations], usage: next.usage ?? leg.usage };
    }
    return this.#result(leg);
  }

  async #answer(question: string, request: DelegationRequest): Promise<string> {
    const prompter = request.prompter;
    const asked = question === '' ? 'The agent needs more input.' : question;
    if (prompter === undefined || !prompter.canPrompt()) {
      request.progress(`asked "${asked}": declined, nobody here can answer`);
      return DECLINED_ANSWER;
    }
    request.progress(`asks: ${asked}`);
    const answer = await prompter.input(`${this.names[0] ?? 'The agent'} asks: ${asked}`, request.signal);
    if (answer === null || answer.trim() === '') {
      request.progress('the question was declined');
      return DECLINED_ANSWER;
    }
    return answer;
  }

  async #leg(message: Message, request: DelegationRequest): Promise<Leg> {
    const leg: Leg = {
      taskId: message.taskId,
      contextId: message.contextId,
      state: undefined,
      statusText: '',
      artifacts: [],
      citations: [],
      usage: undefined,
      direct: undefined,
    };
    const params: SendMessageRequest = {
      tenant: '',
      message,
      configuration: undefined,
      metadata: { [HOPS_METADATA_KEY]: [...request.chain] },
    };
    const stream = this.#client.sendMessageStream(params, {
      signal: request.signal,
      serviceParameters: { [HOPS_HEADER]: request.chain.join(',') },
    });
    try {
      for await (const event of stream) this.#fold(leg, event, request);
    } catch (err) {
      if (request.signal.aborted && leg.taskId !== '') await this.#cancel(leg.taskId);
      throw err;
    }
    return leg;
  }

  #fold(leg: Leg, event: StreamResponse, request: DelegationRequest): void {
    const payload = event.payload;
    if (payload === undefined) return;
    switch (payload.$case) {
      case 'task': {
        leg.taskId = payload.value.id;
        leg.contextId = payload.value.contextId;
        leg.usage = usageOf(payload.value.metadata) ?? leg.usage;
        for (const artifact of payload.value.artifacts) this.#artifact(leg, artifact.parts, false);
        const status = payload.value.status;
        if (status !== undefined) this.#status(leg, status.state, status.message, request);
        return;
      }
      case 'statusUpdate': {
        leg.taskId = payload.value.taskId;
        leg.contextId = payload.value.contextId;
        leg.usage = usageOf(payload.value.metadata) ?? leg.usage;
        const status = payload.value.status;
        if (status !== undefined) this.#status(leg, status.state, status.message, request);
        return;
      }
      case 'artifactUpdate': {
        const artifact = payload.value.artifact;
        if (artifact !== undefined) this.#artifact(leg, artifact.parts, payload.value.append);
        leg.usage = usageOf(payload.value.metadata) ?? leg.usage;
        return;
      }
      case 'message':
        leg.direct = textOf(payload.value.parts);
        leg.citations.push(...citationsOf(payload.value.parts));
        leg.usage = usageOf(payload.value.metadata) ?? leg.usage;
        return;
      default: {
        const never: never = payload;
        return never;
      }
    }
  }

  #status(leg: Leg, state: TaskState, message: Message | undefined, request: DelegationRequest): void {
    leg.state = state;
    const text = textOf(message?.parts);
    leg.statusText = text;
    if (message !== undefined) {
      leg.citations.push(...citationsOf(message.parts));
      leg.usage = usageOf(message.metadata) ?? leg.usage;
    }
    if (state === TaskState.TASK_STATE_WORKING || state === TaskState.TASK_STATE_SUBMITTED) {
      request.progress(text === '' ? stateWord(state) : `${stateWord(state)}: ${cleanText(text)}`);
    }
  }

  #artifact(leg: Leg, parts: readonly Part[], append: boolean): void {
    const text = textOf(parts);
    if (append && leg.artifacts.length > 0) leg.artifacts[leg.artifacts.length - 1] += text;
    else if (text !== '') leg.artifacts.push(text);
    leg.citations.push(...citationsOf(parts));
  }

  #result(leg: Leg): DelegationResult {
    const answer = (s: string): string => {
      const clean = cleanText(s);
      return clean.length <= MAX_ANSWER ? clean : `${clean.slice(0, MAX_ANSWER)}\n[the answer was cut at ${MAX_ANSWER} characters]`;
    };
    if (leg.state === undefined) {
      if (leg.direct !== undefined)
        return { ok: true, text: answer(leg.direct), citations: leg.citations, usage: leg.usage, state: 'message' };
      return {
        ok: false,
        text: 'the agent ended the stream without a task or a message',
        citations: leg.citations,
        usage: leg.usage,
        state: 'unknown',
      };
    }
    const state = stateWord(leg.state);
    if (leg.state === TaskState.TASK_STATE_COMPLETED) {
      const body = [...leg.artifacts, leg.statusText].filter((t) => t !== '').join('\n\n');
      return {
        ok: true,
        text: answer(body === '' ? '(the agent completed the task with no text)' : body),
        citations: leg.citations,
        usage: leg.usage,
        state,
      };
    }
    const why = leg.statusText === '' ? '' : `: ${leg.statusText}`;
    return { ok: false, text: answer(`the task ended ${state}${why}`), citations: leg.citations, usage: leg.usage, state };
  }

  async #cancel(taskId: string): Promise<void> {
    if (taskId === '') return;
    try {
      await this.#client.cancelTask({ tenant: '', id: taskId, metadata: undefined }, { signal: AbortSignal.timeout(5000) });
    } catch {
      // the task may already be over; the delegation is reported either way
    }
  }
}

/** Reads and normalizes the agent card at `url`. Throws with what failed (the HTTP status, or the connection error). */
export async function readAgentCard(url: string, headers: Readonly<Record<string, string>>): Promise<AgentCard> {
  const resolver = new DefaultAgentCardResolver({ fetchImpl: fetchWith(headers, url) });
  const at = cardUrl(url);
  try {
    return await resolver.resolve(at.origin, at.href);
  } catch (err) {
    const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
    throw new Error(`cannot read the agent card at ${at.href} (${err instanceof Error ? err.message : String(err)}${cause})`, {
      cause: err,
    });
  }
}

/** A card read off the wire may lack what its type promises: each list and word is read with a default. */
function listOf<T>(value: readonly T[] | undefined): readonly T[] {
  return value ?? [];
}

function wordOf(value: string | undefined): string {
  return value ?? '';
}

/** The tool description a card gives: who the agent is, what it says of itself, and its skills. */
export function describeCard(card: AgentCard): string {
  const name = cleanText(wordOf(card.name)) || 'an A2A agent';
  const lines = [`Delegate a whole task to ${name}, an agent reached over A2A, and get its answer.`];
  const description = cleanText(wordOf(card.description)).trim();
  if (description !== '') lines.push(description);
  const skills = listOf(card.skills)
    .slice(0, 20)
    .map((s) => {
      const title = cleanText(wordOf(s.name) || wordOf(s.id));
      const said = cleanText(wordOf(s.description)).trim();
      // a card carries a skill's tags in a field of their own; the model reads them beside the skill
      const tags = listOf(s.tags)
        .slice(0, 10)
        .map((t) => cleanText(t).trim())
        .filter((t) => t !== '');
      return `- ${title}${said === '' ? '' : `: ${said}`}${tags.length === 0 ? '' : ` (tags: ${tags.join(', ')})`}`;
    });
  if (skills.length > 0) lines.push('Skills:', ...skills);
  return lines.join('\n');
}
