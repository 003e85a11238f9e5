/**
 * Lenient discovery for listings (`fisk info`): each server is opened on its own, its names and
 * descriptions read, and closed at once. A server that fails, or a descriptor that cannot be
 * used, is a warning; everything else is still listed. The tools found this way have no caller:
 * they are for showing, and running one is an internal error.
 */
import type { McpClientConfig } from '../../config/types.js';
import { compileFilters } from '../../toolkit/filter.js';
import type { FilteredTool, ToolSource } from '../../toolkit/source.js';
import { connectServer } from './connect.js';
import type { ConnectOptions } from './connect.js';
import type { McpWarning } from './sessions.js';
import { buildTools } from './tools.js';

/** Something the operator should hear about a server that could not be listed in full. */
export type McpDiscoveryWarning = McpWarning;

/** What discovery found: one source per server that answered, in configuration order. */
export interface McpDiscovery {
  readonly sources: readonly ToolSource[];
  readonly warnings: readonly McpDiscoveryWarning[];
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Lists every entry's tools without keeping any session open. Never throws for a server's failure. */
export async function discoverMcpTools(entries: readonly McpClientConfig[], opts: ConnectOptions): Promise<McpDiscovery> {
  const sources: ToolSource[] = [];
  const warnings: McpDiscoveryWarning[] = [];
  for (const [index, entry] of entries.entries()) {
    let listing: readonly unknown[];
    try {
      const filters = compileFilters(entry.include, entry.exclude, `mcp_clients[${index}].`);
      const open = await connectServer(entry, index, opts);
      listing = open.listing;
      await open.close();
      const built = buildTools(
        entry.name,
        listing,
        filters,
        undefined,
        open.redact,
        { prefix: entry.prefix, key: `mcp_clients[${index}]` },
        entry.confirm,
        open.sandbox,
      );
      for (const note of built.notes) warnings.push({ server: entry.name, message: note.message });
      const unusable: FilteredTool[] = built.problems.map((p) => ({
        name: p.tool,
        source: 'mcp',
        label: entry.name,
        reason: 'unusable',
        detail: p.reason,
      }));
      for (const problem of built.problems) {
        warnings.push({
          server: entry.name,
          message: `MCP server ${JSON.stringify(entry.name)}: tool ${problem.tool} cannot be sent to a model (${problem.reason}); a run would refuse to start until it is excluded (mcp_clients[${index}].exclude.tools)`,
        });
      }
      sources.push({ source: 'mcp', label: entry.name, tools: built.tools, filtered: [...built.filtered, ...unusable] });
    } catch (err) {
      warnings.push({ server: entry.name, message: describe(err) });
    }
  }
  return { sources, warnings };
}
