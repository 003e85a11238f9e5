/**
 * The tool set source one run snapshots. It starts as the assembled set with the harness's tool
 * search attached (when the provider has no search of its own), takes a resumed run's loaded
 * definitions back, and follows the runtime's MCP servers: a server that changes its list gets a
 * new immutable set published, with an advisory queued for the model's next call.
 */
import type { McpToolsChange } from '../mcp/client/index.js';
import { attachToolSearch, loadedToolNames } from '../toolkit/tool-search.js';
import { PublishedToolSetSource } from '../toolkit/tool-set.js';
import type { Runtime } from './runtime.js';
import { reselectTools } from './tools.js';
import type { AssembledTools } from './tools.js';

/** A run's tool source and what keeps it current. */
export interface RunToolSource {
  readonly source: PublishedToolSetSource;
  /** Loads again what earlier searches loaded (a resume). */
  restoreLoaded(names: readonly string[]): void;
  /** Stops following the runtime's MCP servers. Idempotent. */
  stop(): void;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Builds the source for `tools` (assembled for `run`). Throws `ToolkitError` (`collision`) when a
 * selected tool holds the search tool's name and the harness search is needed.
 */
export function runToolSource(runtime: Runtime, tools: AssembledTools): RunToolSource {
  const source = new PublishedToolSetSource(tools.toolSet, () => runtime.imported.settled());
  let current = tools;
  source.publish(attachToolSearch(current, source));

  const changed = (change: McpToolsChange): void => {
    if (change.error !== undefined) {
      source.advise(change.advisory);
      return;
    }
    try {
      const next = reselectTools(runtime, current, change.source);
      const set = attachToolSearch(next, source, { loaded: loadedToolNames(source.current()) });
      current = next;
      source.publish(set, change.advisory);
    } catch (err) {
      source.advise(
        `The MCP server ${JSON.stringify(change.server)} changed its tool list, but the new list could not be used (${message(err)}); the tools are unchanged.`,
      );
    }
  };
  const unsubscribe = runtime.imported.onToolsChanged(changed);
  let stopped = false;
  return {
    source,
    restoreLoaded(names) {
      if (names.length === 0) return;
      source.publish(attachToolSearch(current, source, { loaded: names }));
    },
    stop() {
      if (stopped) return;
      stopped = true;
      unsubscribe();
    },
  };
}
