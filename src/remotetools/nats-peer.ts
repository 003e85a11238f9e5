/**
 * A fisk agent reached over NATS (spec/002's delegation): its card is read by discovery when the
 * runtime opens, and each delegation is one delegated prompt, followed to its end by `runRemote`,
 * which puts the peer's questions to this run's prompter (conservatively declined when nobody can
 * answer) and sends the cancel when the call is stopped. The peer's events become progress lines.
 */
import { A2aClient } from '../a2a/client.js';
import type { DiscoveryReplyMessage, Transport } from '../a2a/index.js';
import type { AgentEvent } from '../agent/events.js';
import { runRemote } from '../serve/remote-run.js';
import { cleanText, oneLine } from '../util/terminal-text.js';
import type { DelegatePeer, DelegationRequest, DelegationResult } from './delegation.js';

/** The progress line for one of the peer's events; undefined for what is not worth a line. */
export function progressLine(event: AgentEvent): string | undefined {
  switch (event.type) {
    case 'tool_call':
      return `calling ${oneLine(event.name)}`;
    case 'tool_result':
      return event.is_error ? 'a tool call failed' : undefined;
    case 'text':
      return event.final ? undefined : oneLine(event.text).slice(0, 200);
    case 'warning':
      return `warning: ${oneLine(event.text)}`;
    case 'question':
      return `asks: ${oneLine(event.text)}`;
    case 'thinking':
    case 'text_fragment':
    case 'status':
    case 'approval':
    case 'progress':
    case 'crash':
      return undefined;
    default: {
      const never: never = event;
      return never;
    }
  }
}

/** The tool description a fisk agent's card gives: what it says of itself, and the tools it lends. */
export function describeNatsCard(card: DiscoveryReplyMessage): string {
  const name = cleanText(card.name);
  const lines = [`Delegate a whole task to the agent ${name} (over NATS) and get its answer.`];
  const description = cleanText(card.description ?? '').trim();
  if (description !== '') lines.push(description);
  const tools = (card.tools ?? []).slice(0, 20).map((t) => `- ${oneLine(t.name)}: ${oneLine(t.description ?? '').slice(0, 160)}`);
  if (tools.length > 0) lines.push('Its tools:', ...tools);
  return lines.join('\n');
}

/** The NATS peer of one `remote_agents` entry, its card read. */
export class NatsPeer implements DelegatePeer {
  readonly transport = 'nats' as const;
  readonly where: string;
  readonly names: readonly string[];
  readonly description: string;
  readonly #transport: Transport;
  readonly #self: string;
  readonly #identity: string;

  private constructor(transport: Transport, self: string, identity: string, card: DiscoveryReplyMessage) {
    this.#transport = transport;
    this.#self = self;
    this.#identity = identity;
    this.where = `NATS identity ${identity}`;
    this.names = [identity];
    this.description = describeNatsCard(card);
  }

  /** Discovers `identity`. Throws `A2aError` when it does not answer. */
  static async open(transport: Transport, self: string, identity: string): Promise<NatsPeer> {
    const card = await new A2aClient(transport, self).discover(identity);
    return new NatsPeer(transport, self, identity, card);
  }

  async delegate(request: DelegationRequest): Promise<DelegationResult> {
    const sink = {
      emit: (event: AgentEvent): void => {
        const line = progressLine(event);
        if (line !== undefined && line !== '') request.progress(line);
      },
    };
    const outcome = await runRemote({
      transport: this.#transport,
      self: this.#self,
      agent: this.#identity,
      prompt: request.task,
      hops: request.chain,
      sink,
      ...(request.prompter === undefined ? {} : { prompter: request.prompter }),
      signal: request.signal,
    });
    const usage = outcome.usage === undefined ? undefined : { input: outcome.usage.input_tokens, output: outcome.usage.output_tokens };
    if (outcome.error !== undefined) {
      const code = outcome.error.code === undefined ? '' : ` (${outcome.error.code})`;
      return { ok: false, text: `${outcome.error.message}${code}`, citations: [], usage, state: outcome.stopReason };
    }
    const ok = outcome.status === 'completed';
    const text = ok ? outcome.text : `the run ended ${outcome.stopReason}${outcome.text === '' ? '' : `: ${outcome.text}`}`;
    return { ok, text, citations: [], usage, state: outcome.stopReason };
  }
}
