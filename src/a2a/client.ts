/**
 * The calling side of discovery and tool calls. The request is validated against the schema the
 * receiver uses before it leaves; the reply is size-capped, validated and checked to be the
 * protocol that answers the request.
 */
import { decode, encode } from './codec.js';
import { MAX_MESSAGE_BYTES, TOOL_TIMEOUT_METADATA, checkIdentity, subjects } from './protocol.js';
import { stampRequest } from './stamp.js';
import type { Transport } from './transport.js';
import type { DiscoveryReplyMessage, Identity, ToolReplyMessage } from './types.js';

const TOOL_REPLY = ['io.choria.fisk-ai.v1.tool.reply'] as const;

export interface CallOptions {
  /** Overrides the transport's default timeout for this call. */
  readonly timeoutMs?: number;
}

export class A2aClient {
  private readonly self: Identity;
  /** Each peer's checked identity and tool subject, worked out on its first call. */
  private readonly peers = new Map<string, { readonly identity: Identity; readonly tool: string }>();

  constructor(
    private readonly transport: Transport,
    self: string,
  ) {
    this.self = { name: checkIdentity(self, 'the calling identity') };
  }

  /** Fetches an agent's card. */
  async discover(agent: string, opts: CallOptions = {}): Promise<DiscoveryReplyMessage> {
    const req = stampRequest(
      'io.choria.fisk-ai.v1.discovery.request',
      {},
      { sender: this.self, recipient: { name: checkIdentity(agent, 'agent') } },
    );
    const data = await this.transport.request(subjects.discovery(agent), encode(req), opts);
    return decode(data, ['io.choria.fisk-ai.v1.discovery.reply']);
  }

  /**
   * Calls one tool by the name the serving agent gave it. A `null` or absent input is sent as no
   * input at all (models send `null` for tools without arguments; the server reads absence as `{}`).
   */
  async callTool(
    agent: string,
    name: string,
    input: Readonly<Record<string, unknown>> | null | undefined,
    opts: CallOptions = {},
  ): Promise<ToolReplyMessage> {
    const peer = this.peer(agent);
    const req = stampRequest('io.choria.fisk-ai.v1.tool.request', input === null || input === undefined ? { name } : { name, input }, {
      sender: this.self,
      recipient: peer.identity,
    });
    const data = await this.transport.request(peer.tool, encode(req), opts);
    return decode(data, TOOL_REPLY);
  }

  /**
   * The per-call limit `agent` advertises for its tools (the tool endpoint's metadata in the micro
   * service description), in ms; undefined when it advertises none (another implementation), does
   * not answer, or answers with something unreadable. Never throws: the caller then keeps its own
   * timeout.
   */
  async toolTimeout(agent: string, opts: CallOptions = {}): Promise<number | undefined> {
    const peer = this.peer(agent);
    let data: Uint8Array;
    try {
      data = await this.transport.request(subjects.info(agent), new Uint8Array(0), opts);
    } catch {
      return undefined;
    }
    if (data.byteLength > MAX_MESSAGE_BYTES) return undefined;
    let info: unknown;
    try {
      info = JSON.parse(new TextDecoder().decode(data));
    } catch {
      return undefined;
    }
    const endpoints = typeof info === 'object' && info !== null ? (info as { endpoints?: unknown }).endpoints : undefined;
    if (!Array.isArray(endpoints)) return undefined;
    for (const e of endpoints as unknown[]) {
      if (typeof e !== 'object' || e === null) continue;
      const { subject, metadata } = e as { subject?: unknown; metadata?: unknown };
      if (subject !== peer.tool || typeof metadata !== 'object' || metadata === null) continue;
      const raw = (metadata as Record<string, unknown>)[TOOL_TIMEOUT_METADATA];
      const ms = typeof raw === 'string' && /^[0-9]{1,10}$/.test(raw) ? Number(raw) : NaN;
      // a day is far beyond any sane per-call limit: a larger value is not believed
      return ms > 0 && ms <= 86_400_000 ? ms : undefined;
    }
    return undefined;
  }

  private peer(agent: string): { readonly identity: Identity; readonly tool: string } {
    let peer = this.peers.get(agent);
    if (peer === undefined) {
      peer = { identity: { name: checkIdentity(agent, 'agent') }, tool: subjects.tool(agent) };
      // bounded: a client talks to the hosts of one configuration, not to every name it is handed
      if (this.peers.size < 256) this.peers.set(agent, peer);
    }
    return peer;
  }
}
