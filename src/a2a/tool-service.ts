/**
 * The serving side of tool calls and discovery. Application failures (an unknown tool, a command
 * that could not run, a deferral) are answered in-band with `is_error`; only a body that is too
 * big, not JSON, of the wrong protocol or failing its schema is a transport error (status 400).
 */
import type { Tool } from '../toolkit/tool.js';
import { DENY_PROMPTER } from '../toolkit/invoke/deny-prompter.js';
import { invokeTool } from '../toolkit/invoke/invoke.js';
import { NEVER_ABORTED } from '../toolkit/invoke/run-tool.js';
import { deferralNotCarriedMessage, servedDenialReason } from '../toolkit/invoke/messages.js';
import type { InvokeContext, InvokeWrapper } from '../toolkit/invoke/types.js';
import { encode, decode, prepareCodec } from './codec.js';
import { A2aError } from './errors.js';
import {
  DEFAULT_SLOTS,
  DEFAULT_TOOL_TIMEOUT_MS,
  SERVICE_DESCRIPTION,
  SERVICE_VERSION,
  TOOL_TIMEOUT_METADATA,
  checkIdentity,
  subjects,
} from './protocol.js';
import type { AgentCard } from './card.js';
import { stampReply } from './stamp.js';
import { createTransport } from './registry.js';
import type { EndpointSpec, IncomingRequest, ServiceHandle, Transport } from './transport.js';
import type { BodyOf, Identity, Message } from './types.js';

export interface ToolServiceOptions {
  readonly identity: string;
  /** The precomputed card (see `buildAgentCard`); its tools must be exactly `tools`. */
  readonly card: AgentCard;
  /** The tools already selected for serving (see `selectExposed`). */
  readonly tools: readonly Tool[];
  /** Tool calls in flight at once (default 2). */
  readonly slots?: number;
  /** Tool calls that may wait for a slot before further ones are refused with 503 (default 64). */
  readonly maxWaiting?: number;
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
  /** Wrappers around each served call (a telemetry tool span), outermost first. */
  readonly wrappers?: readonly InvokeWrapper[];
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
  readonly wrappers?: readonly InvokeWrapper[] | undefined;
}

/** Answers a body the transport cannot take as a 400 and says whether it did. */
export function refuseBadBody(request: IncomingRequest, err: unknown): boolean {
  if (
    err instanceof A2aError &&
    ['oversize', 'malformed', 'invalid', 'unknown_protocol', 'unexpected_protocol', 'identity'].includes(err.code)
  ) {
    request.respondError(400, err.message);
    return true;
  }
  return false;
}

/** Encodes and sends a reply; one that cannot be encoded is a fault on this side (500). */
function respondMessage(request: IncomingRequest, message: Message): void {
  let data: Uint8Array;
  try {
    data = encode(message);
  } catch (err) {
    request.respondError(500, `reply could not be encoded: ${(err as Error).message}`);
    return;
  }
  request.respond(data);
}

/** The invocation context every served call of one service shares: made once, not per call. */
function servedContext(tools: ReadonlyMap<string, Tool>, policy: RunPolicy): InvokeContext {
  return {
    tools,
    confirmTags: [],
    approve: () =>
      Promise.resolve({
        verdict: 'deny',
        reason: servedDenialReason('this tool needs approval and nobody can approve a call made over a2a', 'unapprovable'),
      }),
    prompter: DENY_PROMPTER,
    ...(policy.workDir === undefined ? {} : { workDir: policy.workDir }),
    timeout: { ms: policy.timeoutMs, key: 'the served tool timeout' },
    refuseUngateable: true,
    scrub: policy.scrub,
    ...(policy.wrappers === undefined ? {} : { wrappers: policy.wrappers }),
    signal: NEVER_ABORTED,
  };
}

/**
 * One served call through the shared invocation pipeline, so a peer's call meets the same checks
 * and the same messages as a run's: a depth bound, required arguments, a gate that fails closed
 * (gated tools are not lent, and a gated one that slipped in is refused: nobody can approve here),
 * the timeout (which holds even for a tool that ignores its signal), and scrubbed output. The slot
 * is the serving loop's, taken before this runs.
 */
async function runTool(
  ctx: InvokeContext,
  name: string,
  input: Readonly<Record<string, unknown>> | undefined,
  policy: RunPolicy,
): Promise<BodyOf<'io.choria.fisk-ai.v1.tool.reply'>> {
  const result = await invokeTool(
    { id: '', name, input: input === undefined ? '{}' : JSON.stringify(input), parsedInput: input ?? {} },
    ctx,
  );
  switch (result.kind) {
    case 'answered': {
      const exec = result.exec;
      return {
        // zero values are omitted, as every peer of this protocol writes them
        ...(result.isError || result.refused !== undefined ? { is_error: true } : {}),
        ...(result.output !== '' ? { output: result.output } : {}),
        ...(exec !== undefined
          ? {
              exec: {
                command: policy.scrub(exec.command),
                ...(exec.exitCode !== 0 ? { exit_code: exec.exitCode } : {}),
                ...(exec.truncated ? { truncated: true } : {}),
              },
            }
          : {}),
      };
    }
    case 'deferred':
      return { is_error: true, output: deferralNotCarriedMessage(name, result.reason) };
    case 'end_run':
      return { is_error: true, output: policy.scrub(result.message) };
    default: {
      const never: never = result;
      return never;
    }
  }
}

const TOOL_REQUEST = ['io.choria.fisk-ai.v1.tool.request'] as const;

/** The discovery and tool endpoints of one agent. */
export function toolEndpoints(opts: ToolServiceOptions): EndpointSpec[] {
  const self: Identity = { name: checkIdentity(opts.identity) };
  const byName = new Map(opts.tools.map((t) => [t.name, t]));
  const timeoutMs = opts.toolTimeoutMs !== undefined && opts.toolTimeoutMs > 0 ? opts.toolTimeoutMs : DEFAULT_TOOL_TIMEOUT_MS;
  const policy: RunPolicy = { timeoutMs, workDir: opts.workDir, scrub: opts.scrub ?? ((text) => text), wrappers: opts.wrappers };
  const ctx = servedContext(byName, policy);
  const card = opts.card;
  return [
    {
      name: 'discovery',
      subject: subjects.discovery(opts.identity),
      slotted: false,
      handle: (request) => {
        try {
          const req = decode(request.data, ['io.choria.fisk-ai.v1.discovery.request']);
          respondMessage(request, stampReply('io.choria.fisk-ai.v1.discovery.reply', card, req, { self }));
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
      // callers give up on a call at this limit plus a margin, rather than at their own longer one
      metadata: { [TOOL_TIMEOUT_METADATA]: String(timeoutMs) },
      handle: async (request) => {
        let req;
        try {
          req = decode(request.data, TOOL_REQUEST);
        } catch (err) {
          if (refuseBadBody(request, err)) return;
          throw err;
        }
        const started = opts.observe === undefined ? 0 : performance.now();
        const body = await runTool(ctx, req.name, req.input, policy);
        opts.observe?.({
          tool: req.name,
          caller: req.sender.name,
          isError: body.is_error === true,
          ...(body.exec !== undefined ? { exitCode: body.exec.exit_code ?? 0 } : {}),
          durationMs: performance.now() - started,
        });
        respondMessage(request, stampReply('io.choria.fisk-ai.v1.tool.reply', body, req, { self }));
      },
    },
  ];
}

/**
 * Starts the a2a service of one identity: discovery, tool calls and any extra endpoints, on a NATS
 * connection (through the `nats` binding) or on a given transport. Stop it with the handle.
 */
export async function startToolService(
  target: Transport | { readonly connection: unknown },
  opts: ToolServiceOptions,
): Promise<ServiceHandle> {
  const transport = 'serve' in target ? target : createTransport('nats', { connection: target.connection });
  prepareCodec();
  return transport.serve({
    name: checkIdentity(opts.identity),
    version: SERVICE_VERSION,
    description: SERVICE_DESCRIPTION,
    slots: opts.slots !== undefined && opts.slots > 0 ? opts.slots : DEFAULT_SLOTS,
    ...(opts.maxWaiting !== undefined ? { maxWaiting: opts.maxWaiting } : {}),
    endpoints: [...toolEndpoints(opts), ...(opts.extraEndpoints ?? [])],
  });
}
