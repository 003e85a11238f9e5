/**
 * One server's listing turned into tools: include/exclude by name, every kept descriptor
 * checked, and each tool built as an imported function tool (kind `mcp`, presentation `remote`,
 * never confirm-gated, never re-served), whose call goes to the server under the name it listed.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { z } from 'zod';
import { newFuncTool } from '../../toolkit/functool/functool.js';
import type { FuncTool } from '../../toolkit/functool/functool.js';
import { filterVerdict } from '../../toolkit/filter.js';
import type { CompiledFilters } from '../../toolkit/filter.js';
import type { FilteredTool } from '../../toolkit/source.js';
import type { ExecDeps, Outcome } from '../../toolkit/tool.js';
import { capText, fenceAnswer, outcomeOf } from './content.js';
import { cleanDescription, cleanSchema } from './clean-descriptor.js';
import { checkDescriptor, shownName } from './descriptor.js';
import { McpClientError } from './errors.js';
import { cleanText } from '../../util/terminal-text.js';
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

/** What one listing produced. */
export interface BuiltTools {
  readonly tools: readonly FuncTool[];
  readonly filtered: readonly FilteredTool[];
  readonly problems: readonly DescriptorProblem[];
}

const CallAnswer = z.looseObject({
  content: z.array(z.unknown()).optional(),
  structuredContent: z.unknown().optional(),
  isError: z.boolean().optional(),
});

/**
 * A caller over `client`. Whatever the server answers is the model's to read: a tool error, and
 * a protocol-level refusal (unknown tool, invalid arguments, a dropped connection), both arrive as
 * error results naming the server, never as a failure of the run.
 */
export function callerFor(server: string, client: () => Client | undefined, redact: Redactor, maxOutput: number): McpCaller {
  return async (remoteName, args, deps, signal) => {
    const c = client();
    if (c === undefined) throw new McpClientError('closed', server, `MCP server ${JSON.stringify(server)} was closed before the call to ${remoteName}; sessions must outlive the runs that use them`);
    // A signal of its own per call: the protocol layer leaves a listener on the signal it is given,
    // and a run-wide signal would collect one per call.
    const own = new AbortController();
    const forward = (): void => own.abort(signal.reason);
    if (signal.aborted) forward();
    else signal.addEventListener('abort', forward, { once: true });
    try {
      const answer = await c.request({ method: 'tools/call', params: { name: remoteName, arguments: args } }, CallAnswer, {
        signal: own.signal,
        timeout: deps.timeoutMs ?? NO_TIMEOUT_MS,
      });
      return outcomeOf(answer, { server, tool: remoteName, maxOutput, redact });
    } catch (err) {
      // the refusal's words are the server's too: cleaned, bounded and fenced like an answer
      const said = capText(cleanText(errorText(err, redact)), maxOutput);
      return { status: 'completed', output: `the MCP server ${JSON.stringify(server)} refused the call to ${remoteName}:\n${fenceAnswer({ server, tool: remoteName }, said.text, said.truncated, true)}`, isError: true };
    } finally {
      signal.removeEventListener('abort', forward);
    }
  };
}

function notCallable(server: string, name: string): never {
  throw new McpClientError('not_callable', server, `${name} from MCP server ${JSON.stringify(server)} was found for listing only and cannot be called`);
}

/**
 * Builds `server`'s tools from its raw listing. Filters apply by name first, so a tool the
 * operator excluded is never judged; every kept descriptor is then checked, and a tool that fails
 * (or repeats a name) is reported in `problems` rather than built. `caller` absent builds tools
 * that throw when run. Descriptions pass through `redact`: they reach the model and the listing,
 * and a server can write a credential it read into one as easily as into a result.
 */
export function buildTools(server: string, listing: readonly unknown[], filters: CompiledFilters, caller: McpCaller | undefined, redact: Redactor = (text) => text): BuiltTools {
  const tools: FuncTool[] = [];
  const filtered: FilteredTool[] = [];
  const problems: DescriptorProblem[] = [];
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
    const description = redact(cleanDescription(d.description));
    if (description === '') {
      problems.push({ tool: shownName(d.name), reason: 'its description is only control characters or escape sequences' });
      return;
    }
    if (seen.has(d.name)) {
      problems.push({ tool: shownName(d.name), reason: 'the server lists this name more than once' });
      return;
    }
    seen.add(d.name);
    tools.push(
      newFuncTool({
        name: d.name,
        description,
        inputSchema: cleanSchema(d.inputSchema),
        origin: { kind: 'mcp', server, remoteName: d.name },
        handler: (input, call) => (caller === undefined ? notCallable(server, d.name) : caller(d.name, input, call.deps, call.signal)),
      }),
    );
  });
  return { tools, filtered, problems };
}
