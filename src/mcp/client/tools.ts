/**
 * One server's listing turned into tools: include/exclude by name, every kept descriptor
 * checked, and each tool built as an imported function tool (kind `mcp`, presentation `remote`,
 * gated as `confirm` says, never re-served), whose call goes to the server under the name it listed.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { z } from 'zod';
import { newFuncTool } from '../../toolkit/functool/functool.js';
import type { SandboxReport } from '../../toolkit/sandbox/report.js';
import type { FuncTool } from '../../toolkit/functool/functool.js';
import { filterVerdict } from '../../toolkit/filter.js';
import type { CompiledFilters } from '../../toolkit/filter.js';
import type { FilteredTool } from '../../toolkit/source.js';
import type { ExecDeps, Outcome } from '../../toolkit/tool.js';
import { capText, fenceAnswer, outcomeOf } from './content.js';
import type { McpConfirm } from '../../config/types.js';
import { annotationsOf, behaviorFrom, confirmPolicy } from './approval.js';
import type { McpAnnotations } from './approval.js';
import { cleanDescription, cleanSchema } from './clean-descriptor.js';
import { checkDescriptor, shownName } from './descriptor.js';
import type { McpDescriptor } from './descriptor.js';
import { McpClientError } from './errors.js';
import { cleanText, oneLine } from '../../util/terminal-text.js';
import { hashedName, modelSafeName, prefixedName } from './naming.js';
import { errorText } from './redact.js';
import type { Redactor } from './redact.js';

/** The longest a call waits when the caller gave no timeout (the largest timer Node accepts). */
const NO_TIMEOUT_MS = 2 ** 31 - 1;

/** Sends one call to the server; absent for tools found by discovery, which cannot run. */
export type McpCaller = (remoteName: string, args: Record<string, unknown>, deps: ExecDeps, signal: AbortSignal) => Promise<Outcome>;

/** A descriptor left out because it cannot be sent to a model API. */
export interface DescriptorProblem {
  /** The tool's quoted name, or its position when it has none. */
  readonly tool: string;
  readonly reason: string;
}

/** Something about a usable tool the operator should hear (a missing description). */
export interface DescriptorNote {
  readonly tool: string;
  readonly message: string;
}

/** What one listing produced. */
export interface BuiltTools {
  readonly tools: readonly FuncTool[];
  readonly filtered: readonly FilteredTool[];
  readonly problems: readonly DescriptorProblem[];
  readonly notes: readonly DescriptorNote[];
}

/** How a server's tools are named: its entry's `prefix` and the key it is configured under. */
export interface ToolNaming {
  readonly prefix: string | undefined;
  /** `mcp_clients[<i>]`, for messages naming what to change. */
  readonly key: string;
}

const CallAnswer = z.looseObject({
  content: z.array(z.unknown()).optional(),
  structuredContent: z.unknown().optional(),
  isError: z.boolean().optional(),
});

/**
 * Where a caller gets its session. `client` is the session to call through, or, when there is none
 * to be had (the server went away and could not be started again), why not. `gone` says how a
 * session's server went away once it has, so a call it dropped is not reported as a refusal.
 */
export interface CallerSession {
  client(): Promise<Client | string | undefined>;
  gone(client: Client): string | undefined;
  /** The server no longer knows `client`'s session (it restarted, say): the next call starts a new one. */
  expired(client: Client, how: string): void;
}

/**
 * Whether a call failed because the server no longer knows the session: streamable HTTP's 404
 * (what the protocol prescribes) or 400 (what servers written from the SDK's own example answer for
 * a session id they do not hold). Either way the request was refused before anything ran.
 */
function sessionExpired(err: unknown): number | undefined {
  return err instanceof StreamableHTTPError && (err.code === 404 || err.code === 400) ? err.code : undefined;
}

/**
 * A caller over a session. Whatever the server answers is the model's to read: a tool error, and
 * a protocol-level refusal (unknown tool, invalid arguments, a dropped connection), both arrive as
 * error results naming the server, never as a failure of the run.
 */
export function callerFor(server: string, from: CallerSession, redact: Redactor, maxOutput: number): McpCaller {
  const failed = (remoteName: string, lead: string, text: string): Outcome => {
    // what the server or its process said is the server's words: cleaned, bounded and fenced like an answer
    const said = capText(cleanText(text), maxOutput);
    return {
      status: 'completed',
      output: `${lead}:\n${fenceAnswer({ server, tool: remoteName }, said.text, said.truncated, true)}`,
      isError: true,
    };
  };
  return async (remoteName, args, deps, signal) => {
    const mcpClient = await from.client();
    if (mcpClient === undefined)
      throw new McpClientError(
        'closed',
        server,
        `MCP server ${JSON.stringify(server)} was closed before the call to ${remoteName}; sessions must outlive the runs that use them`,
      );
    if (typeof mcpClient === 'string')
      return failed(
        remoteName,
        `the MCP server ${JSON.stringify(server)} is not available, so ${remoteName} was not called`,
        redact(mcpClient),
      );
    // A signal of its own per call: the protocol layer leaves a listener on the signal it is given,
    // and a run-wide signal would collect one per call.
    const own = new AbortController();
    const forward = (): void => own.abort(signal.reason);
    if (signal.aborted) forward();
    else signal.addEventListener('abort', forward, { once: true });
    try {
      const answer = await mcpClient.request({ method: 'tools/call', params: { name: remoteName, arguments: args } }, CallAnswer, {
        signal: own.signal,
        timeout: deps.timeoutMs ?? NO_TIMEOUT_MS,
      });
      return outcomeOf(answer, { server, tool: remoteName, maxOutput, redact });
    } catch (err) {
      const status = sessionExpired(err);
      if (status !== undefined) {
        from.expired(mcpClient, `no longer knows this agent's session (HTTP ${status})`);
        return failed(
          remoteName,
          `the MCP server ${JSON.stringify(server)} no longer knows this agent's session (HTTP ${status}), so ${remoteName} was not run; a new session is started for the next call`,
          errorText(err, redact),
        );
      }
      const gone = signal.aborted ? undefined : from.gone(mcpClient);
      if (gone !== undefined)
        return failed(
          remoteName,
          `the MCP server ${JSON.stringify(server)} ${gone} during the call to ${remoteName}, so whether the call took effect is not known; the server is started again for the next call`,
          errorText(err, redact),
        );
      return failed(remoteName, `the MCP server ${JSON.stringify(server)} refused the call to ${remoteName}`, errorText(err, redact));
    } finally {
      signal.removeEventListener('abort', forward);
    }
  };
}

function notCallable(server: string, name: string): never {
  throw new McpClientError(
    'not_callable',
    server,
    `${name} from MCP server ${JSON.stringify(server)} was found for listing only and cannot be called`,
  );
}

/**
 * Builds `server`'s tools from its raw listing. Filters apply by the server's names first, so a
 * tool the operator excluded is never judged; every kept descriptor is then checked, and a tool
 * that fails (or repeats a name) is reported in `problems` rather than built. Each tool is named
 * for the model by `naming` (see `naming.ts`) and called under the server's own name; a tool the
 * server gave no description is described by its name, with a note. `caller` absent builds tools
 * that throw when run. `confirm` decides which tools wait for the operator's approval, and why.
 * Descriptions pass through `redact`: they reach the model and the listing,
 * and a server can write a credential it read into one as easily as into a result.
 */
export function buildTools(
  server: string,
  listing: readonly unknown[],
  filters: CompiledFilters,
  caller: McpCaller | undefined,
  redact: Redactor = (text) => text,
  naming: ToolNaming = { prefix: undefined, key: 'mcp_clients[]' },
  confirm: McpConfirm = { mode: 'auto' },
  sandbox?: SandboxReport | null,
): BuiltTools {
  const gateFor = confirmPolicy(confirm);
  const annotations = new Map<string, McpAnnotations>();
  const filtered: FilteredTool[] = [];
  const problems: DescriptorProblem[] = [];
  const notes: DescriptorNote[] = [];
  const kept: McpDescriptor[] = [];
  const seen = new Set<string>();
  listing.forEach((raw, position) => {
    const name = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>)['name'] : undefined;
    if (typeof name === 'string' && name !== '') {
      // imported tools carry no tags, so only name patterns (and a "" tag meaning untagged) can match
      const verdict = filterVerdict({ name, tags: [] }, filters);
      if (verdict !== undefined) {
        filtered.push({ name, source: 'mcp', label: server, ...verdict });
        return;
      }
    }
    const checked = checkDescriptor(raw, position);
    if (!checked.ok) {
      problems.push({ tool: checked.tool, reason: checked.reason });
      return;
    }
    const d = checked.descriptor;
    if (seen.has(d.name)) {
      problems.push({ tool: shownName(d.name), reason: 'the server lists this name more than once' });
      return;
    }
    seen.add(d.name);
    annotations.set(d.name, annotationsOf(raw));
    kept.push(d);
  });
  const names = modelNames(kept, naming.prefix);
  const tools: FuncTool[] = [];
  for (const definition of kept) {
    const name = names.get(definition.name);
    if (name === undefined) {
      problems.push({
        tool: shownName(definition.name),
        reason: 'its name, rewritten for the model APIs, is one another of its tools already has',
      });
      continue;
    }
    // a description that is nothing but escape sequences and control characters is no description
    let description = definition.description === undefined ? '' : redact(cleanDescription(definition.description));
    if (description === '') {
      description = oneLine(definition.name);
      notes.push({
        tool: name,
        message: `MCP server ${JSON.stringify(server)}: tool ${shownName(definition.name)} has no description, so the model is told only its name; exclude it with ${naming.key}.exclude.tools if that is not enough to use it by`,
      });
    }
    // gated by the server's own name and annotations, whatever the model calls it
    const hints = annotations.get(definition.name) ?? {};
    const trigger = gateFor(definition.name, hints);
    tools.push(
      newFuncTool({
        name,
        description,
        inputSchema: cleanSchema(definition.inputSchema),
        origin: { kind: 'mcp', server, remoteName: definition.name },
        behavior: behaviorFrom(hints),
        ...(trigger === undefined ? {} : { confirm: { trigger } }),
        ...(sandbox === undefined ? {} : { sandbox }),
        handler: (input, call) =>
          caller === undefined ? notCallable(server, definition.name) : caller(definition.name, input, call.deps, call.signal),
      }),
    );
  }
  return { tools, filtered, problems, notes };
}

/**
 * The model's name for each of the server's names. Names that are valid as they stand claim
 * theirs first; rewritten ones follow in the order of the names they replace, not the listing's,
 * and one that lands on a name already taken ends in a hash of its own, so the outcome depends on
 * the set of names alone. A server name missing from the map could not be given one.
 */
function modelNames(kept: readonly McpDescriptor[], prefix: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  const taken = new Set<string>();
  const rewritten: string[] = [];
  for (const d of kept) {
    const wanted = prefixedName(prefix, d.name);
    if (modelSafeName(wanted) === wanted) {
      out.set(d.name, wanted);
      taken.add(wanted);
    } else {
      rewritten.push(d.name);
    }
  }
  for (const serverName of rewritten.sort()) {
    const wanted = prefixedName(prefix, serverName);
    const name = [modelSafeName(wanted), hashedName(wanted)].find((n) => !taken.has(n));
    if (name === undefined) continue;
    out.set(serverName, name);
    taken.add(name);
  }
  return out;
}
