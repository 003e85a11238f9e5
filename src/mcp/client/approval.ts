/**
 * Which imported tools wait for the operator's approval. An MCP server has no operator of its own
 * standing behind its tools, so this agent's operator is the only gate there is: by default every
 * tool is gated unless the server annotates it `readOnlyHint: true` (`mcp_clients[].confirm:
 * auto`), as the peer harnesses do. Annotations are the server's own word about its tools: a
 * server that lies about one is answered by `confirm: always`, never by trusting it harder.
 */
import type { McpConfirm } from '../../config/types.js';
import type { Behavior, Hint } from '../../toolkit/tool.js';

/** The behaviour hints a server may annotate a tool with; anything but a boolean is no hint. */
export interface McpAnnotations {
  readonly readOnlyHint?: boolean;
  readonly destructiveHint?: boolean;
  readonly idempotentHint?: boolean;
  readonly openWorldHint?: boolean;
}

const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

/** The boolean hints of a raw descriptor's `annotations`. */
export function annotationsOf(raw: unknown): McpAnnotations {
  const a = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>)['annotations'] : undefined;
  if (typeof a !== 'object' || a === null) return {};
  const out: Record<string, boolean> = {};
  for (const h of HINTS) {
    const v = (a as Record<string, unknown>)[h];
    if (typeof v === 'boolean') out[h] = v;
  }
  return out;
}

function hint(v: boolean | undefined): Hint {
  return v === undefined ? 'unset' : v ? 'true' : 'false';
}

/** The annotations as the tool's behaviour, for surfaces that show it. */
export function behaviorFrom(a: McpAnnotations): Behavior {
  return {
    readOnly: hint(a.readOnlyHint),
    destructive: hint(a.destructiveHint),
    idempotent: hint(a.idempotentHint),
    openWorld: hint(a.openWorldHint),
  };
}

/** A compiled `confirm` setting. */
export type ConfirmPolicy = (remoteName: string, annotations: McpAnnotations) => string | undefined;

/**
 * The policy of `confirm`: for each tool, the trigger a prompt and `fisk info` name (why it is
 * gated), or undefined for a tool that runs unasked.
 */
export function confirmPolicy(confirm: McpConfirm): ConfirmPolicy {
  switch (confirm.mode) {
    case 'auto':
      return (_name, a) => {
        if (a.readOnlyHint === true) return undefined;
        return a.destructiveHint === true ? 'confirm: auto (destructiveHint)' : 'confirm: auto (not readOnlyHint)';
      };
    case 'always':
      return () => 'confirm: always';
    case 'never':
      return () => undefined;
    case 'patterns': {
      const compiled = confirm.patterns.map((p) => ({ p, re: new RegExp(p, 'u') }));
      return (name) => {
        const hit = compiled.find((c) => c.re.test(name));
        return hit === undefined ? undefined : `confirm: ${hit.p}`;
      };
    }
    default: {
      const never: never = confirm;
      return never;
    }
  }
}
