/**
 * What the operator should hear before serving: settings that do nothing over MCP are said out
 * loud rather than silently ignored.
 */
import type { Config, ConfirmOverMcp } from '../../config/types.js';
import { exposureWarning } from '../../knowledge/tools.js';
import { gateOf } from '../../toolkit/invoke/gate.js';
import type { Tool } from '../../toolkit/tool.js';

/** How loud a note is. */
export const NOTE_LEVELS = ['note', 'warning'] as const;
export type NoteLevel = (typeof NOTE_LEVELS)[number];

/** One thing to tell the operator at startup, with the key it is about. */
export interface McpNote {
  readonly level: NoteLevel;
  readonly key: string;
  readonly message: string;
}

/** The startup notes for serving `config` over MCP. */
export function mcpNotes(config: Config): McpNote[] {
  const out: McpNote[] = [];
  if (config.applicationPath === undefined) {
    out.push({
      level: 'note',
      key: 'application_path',
      message: 'no wrapped application configured (application_path unset); only the allowlisted built-ins are served',
    });
  }
  if (config.harness.humanInTheLoop) {
    out.push({
      level: 'warning',
      key: 'harness.human_in_the_loop',
      message: 'harness.human_in_the_loop has no effect over MCP; the ask_human tools are never served to MCP clients',
    });
  }
  if (config.harness.memory.enabled) {
    out.push({
      level: 'warning',
      key: 'harness.memory',
      message: 'harness.memory has no effect over MCP; the memory tools exist only inside an agent run',
    });
  }
  // another party's tools are never served again under this agent's name, gated or not
  if (config.mcpClients.length > 0) {
    out.push({
      level: 'note',
      key: 'mcp_clients',
      message:
        "mcp_clients are not served over MCP: fisk mcp serves this agent's own tools, never another MCP server's, so those servers are not started",
    });
  }
  if (config.remoteTools.length > 0) {
    out.push({
      level: 'note',
      key: 'remote_tools',
      message:
        "remote_tools are not served over MCP: fisk mcp serves this agent's own tools, never a peer agent's, so no peer is contacted",
    });
  }
  const builtins = config.expose.mcp?.builtins ?? [];
  if (config.harness.knowledge.enabled && builtins.length === 0) {
    out.push({
      level: 'note',
      key: 'expose.agent.mcp.builtins',
      message:
        'knowledge is enabled but not served over MCP; add knowledge_search (and knowledge_enumerate) to expose.agent.mcp.builtins to let clients search it',
    });
  }
  const lost = exposureWarning(builtins);
  if (lost !== undefined) out.push({ level: 'warning', key: 'expose.agent.mcp.builtins', message: lost });
  return out;
}

/**
 * The warning that `confirm_over_mcp` lets gated tools run unasked, for the tools actually served:
 * with none gated there is nothing to warn about. A tool that cannot report its gate counts as
 * gated, so the warning fails loud rather than quiet.
 */
export function confirmNote(confirm: ConfirmOverMcp, tools: readonly Tool[], confirmTags: readonly string[]): McpNote | undefined {
  const gated = tools.filter((t) => t.capabilities.gate === null || gateOf(t, confirmTags).gated).map((t) => t.name);
  if (gated.length === 0) return undefined;
  const which = `(${gated.join(', ')})`;
  const key = 'expose.agent.mcp.confirm_over_mcp';
  switch (confirm) {
    case 'auto':
      return {
        level: 'warning',
        key,
        message: `confirm_over_mcp is auto: confirm-gated tools ${which} run ungated for clients that cannot be asked (no form elicitation), and each such call is logged as ungated; set it to always to refuse those calls, and tag ai:deny what must never run`,
      };
    case 'never':
      return {
        level: 'warning',
        key,
        message: `confirm_over_mcp is never: confirm-gated tools ${which} run without asking any client, and each such call is logged as ungated; tag ai:deny what must never run`,
      };
    case 'always':
      return undefined;
    default: {
      const never: never = confirm;
      return never;
    }
  }
}
