/**
 * The serving side of tool calls and discovery. Application failures (an unknown tool, a command
 * that could not run, a deferral) are answered in-band with `is_error`; only a body that is too
 * big, not JSON, of the wrong protocol or failing its schema is a transport error (status 400).
 */
import type { Prompter, Tool } from '../toolkit/tool.js';
import { encode, decode, prepareCodec } from './codec.js';
import { A2aError } from './errors.js';
import { DEFAULT_SLOTS, DEFAULT_TOOL_TIMEOUT_MS, SERVICE_DESCRIPTION, SERVICE_VERSION, checkIdentity, subjects } from './protocol.js';
import type { AgentCard } from './card.js';
import { stampReply } from './stamp.js';
import { createTransport } from './registry.js';
import type { EndpointSpec, IncomingRequest, ServiceHandle, Transport } from './transport.js';
import type { BodyOf, Identity } from './types.js';

/** A prompter that can ask nobody: every question gets the conservative answer. */
export const DENY_PROMPTER: Prompter = Object.freeze({
  canPrompt: () => false,
  approve: () => Promise.resolve('decline' as const),
  confirm: () => Promise.resolve(false),
  select: () => Promise.resolve(null),
  input: () => Promise.resolve(null),
});

export interface ToolServiceOptions {
  readonly identity: string;
  /** The precomputed card (see `buildAgentCard`); its tools must be exactly `tools`. */
  readonly card: AgentCard;
  /** The tools already selected for serving (see `selectExposed`). */
  readonly tools: readonly Tool[];
  /** Tool calls in flight at once (default 2). */
  readonly slots?: number;
  /** Per-call limit in ms (default 30 s). */
  readonly toolTimeoutMs?: number;
  /** Further endpoints on the same service (the prompt endpoint of a delegation server). */
  readonly extraEndpoints?: readonly EndpointSpec[];
  /** The working directory of tools that declare they need one (command tools). */
  readonly workDir?: string;
  /** Replaces every credential value in what a tool produced before it leaves the process. */
  readonly scrub?: (text: string) => string;
  /** Told about every answered call, for an operator's log: names and outcomes, never arguments. */
  readonly observe?: (call: ServedCall) => void;
}

/** One answered tool call, as `observe` hears of it. */
export interface ServedCall {
  readonly tool: string;
  /** The caller's asserted name: for logs, never for authorization. */
  readonly caller: string;
  readonly isError: boolean;
  /** The command's exit status, for a command tool that ran. */
  readonly exitCode?: number;
  readonly durationMs: number;
}

interface RunPolicy {
  readonly timeoutMs: number;
  readonly workDir: string | undefined;
  readonly scrub: (text: string) => string;
}

/** Answers a body the transport cannot take as a 400 and says whether it did. */
export function refuseBadBody(request: IncomingRequest, err: unknown): boolean {
  if (err instanceof A2aError && ['oversize', 'malformed', 'invalid', 'unknown_protocol', 'unexpected_protocol', 'identity'].includes(err.code)) {
    request.respondError(400, err.message);
    return true;
  }
  return false;
}

function respondMessage(request: IncomingRequest, build: () => Uint8Array): void {
  let data: Uint8Array;
  try {
    data = build();
  } catch (err) {
    request.respondError(500, `reply could not be encoded: ${(err as Error).message}`);
    return;
  }
  request.respond(data);
}

async function runTool(tool: Tool, input: Readonly<Record<string, unknown>> | undefined, policy: RunPolicy): Promise<BodyOf<'io.choria.fisk-ai.v1.tool.reply'>> {
  const timeoutMs = policy.timeoutMs;
  // a plain timer cleared on return: AbortSignal.timeout leaves one behind per call until it fires
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error('timed out')), timeoutMs);
  const signal = controller.signal;
  try {
    // the limit holds even for a tool that ignores its signal, so a slot is never held past it
    const expired = new Promise<never>((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('timed out')), { once: true }));
    const outcome = await Promise.race([tool.execute(
        JSON.stringify(input ?? {}),
        { prompter: DENY_PROMPTER, timeoutMs, ...(tool.capabilities.workDir && policy.workDir !== undefined ? { workDir: policy.workDir } : {}) },
        signal,
      ), expired]);
    if (outcome.status === 'deferred') return { is_error: true, output: `tool ${JSON.stringify(tool.name)} deferred its answer (${outcome.reason}), which a remote call cannot carry` };
    const exec = outcome.exec;
    return {
      // zero values are omitted, as every peer of this protocol writes them
      ...(outcome.isError ? { is_error: true } : {}),
      ...(outcome.output !== '' ? { output: policy.scrub(outcome.output) } : {}),
      ...(exec !== undefined
        ? { exec: { command: policy.scrub(exec.command), ...(exec.exitCode !== 0 ? { exit_code: exec.exitCode } : {}), ...(exec.truncated ? { truncated: true } : {}) } }
        : {}),
    };
  } catch (err) {
    return { is_error: true, output: signal.aborted ? `tool ${JSON.stringify(tool.name)} did not finish within ${timeoutMs} ms` : policy.scrub((err as Error).message) };
  } finally {
    clearTimeout(timer);
  }
}

/** The discovery and tool endpoints of one agent. */
export function toolEndpoints(opts: ToolServiceOptions): EndpointSpec[] {
  const self: Identity = { name: checkIdentity(opts.identity) };
  const byName = new Map(opts.tools.map((t) => [t.name, t]));
  const timeoutMs = opts.toolTimeoutMs !== undefined && opts.toolTimeoutMs > 0 ? opts.toolTimeoutMs : DEFAULT_TOOL_TIMEOUT_MS;
  const policy: RunPolicy = { timeoutMs, workDir: opts.workDir, scrub: opts.scrub ?? ((text) => text) };
  const card = opts.card;
  return [
    {
      name: 'discovery',
      subject: subjects.discovery(opts.identity),
      slotted: false,
      handle: (request) => {
        try {
          const req = decode(request.data, ['io.choria.fisk-ai.v1.discovery.request']);
          respondMessage(request, () => encode(stampReply('io.choria.fisk-ai.v1.discovery.reply', card, req, { self })));
        } catch (err) {
          if (!refuseBadBody(request, err)) throw err;
        }
        return Promise.resolve();
      },
    },
    {
      name: 'tool',
      subject: subjects.tool(opts.identity),
      slotted: true,
      handle: async (request) => {
        let req;
        try {
          req = decode(request.data, ['io.choria.fisk-ai.v1.tool.request']);
        } catch (err) {
          if (refuseBadBody(request, err)) return;
          throw err;
        }
        const tool = byName.get(req.name);
        const started = performance.now();
        const body = tool === undefined ? { is_error: true, output: `tool ${JSON.stringify(req.name)} is not available` } : await runTool(tool, req.input, policy);
        opts.observe?.({
          tool: req.name,
          caller: req.sender.name,
          isError: body.is_error === true,
          ...(body.exec !== undefined ? { exitCode: body.exec.exit_code ?? 0 } : {}),
          durationMs: performance.now() - started,
        });
        respondMessage(request, () => encode(stampReply('io.choria.fisk-ai.v1.tool.reply', body, req, { self })));
      },
    },
  ];
}

/**
 * Starts the a2a service of one identity: discovery, tool calls and any extra endpoints, on a NATS
 * connection (through the `nats` binding) or on a given transport. Stop it with the handle.
 */
export async function startToolService(target: Transport | { readonly connection: unknown }, opts: ToolServiceOptions): Promise<ServiceHandle> {
  const transport = 'serve' in target ? target : createTransport('nats', { connection: target.connection });
  prepareCodec();
  return transport.serve({
    name: checkIdentity(opts.identity),
    version: SERVICE_VERSION,
    description: SERVICE_DESCRIPTION,
    slots: opts.slots !== undefined && opts.slots > 0 ? opts.slots : DEFAULT_SLOTS,
    endpoints: [...toolEndpoints(opts), ...(opts.extraEndpoints ?? [])],
  });
}
