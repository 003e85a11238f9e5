/**
 * A tool's MCP annotations: a readable title and the behaviour hints. Approval is deliberately
 * not expressed here: annotations are advice a client may ignore, and a gate stated as advice
 * would look like an enforcement it is not.
 */
import { behaviorOf } from '../../toolkit/tool.js';
import type { Hint, Tool } from '../../toolkit/tool.js';

/** The annotation object a served tool is listed with. */
export interface ServedAnnotations {
  readonly title: string;
  readonly readOnlyHint?: boolean;
  readonly destructiveHint?: boolean;
  readonly idempotentHint?: boolean;
  readonly openWorldHint?: boolean;
}

/** `stream_purge` → `Stream purge`: the flat name read as words. */
export function readableTitle(name: string): string {
  const words = name.replace(/[_-]+/g, ' ').trim();
  return words === '' ? name : words.charAt(0).toUpperCase() + words.slice(1);
}

function hint(h: Hint): boolean | undefined {
  switch (h) {
    case 'true':
      return true;
    case 'false':
      return false;
    case 'unset':
      return undefined;
    default: {
      const never: never = h;
      return never;
    }
  }
}

/**
 * Maps a tool onto the annotation object. A tool that cannot describe its behaviour gets the
 * conservative reading (may write, may destroy, not idempotent, open world); an unset hint is left
 * out so the client applies its own default.
 */
export function toolAnnotations(tool: Tool): ServedAnnotations {
  const b = behaviorOf(tool);
  const out: { -readonly [K in keyof ServedAnnotations]: ServedAnnotations[K] } = { title: readableTitle(tool.name) };
  const readOnly = hint(b.readOnly);
  const destructive = hint(b.destructive);
  const idempotent = hint(b.idempotent);
  const openWorld = hint(b.openWorld);
  if (readOnly !== undefined) out.readOnlyHint = readOnly;
  if (destructive !== undefined) out.destructiveHint = destructive;
  if (idempotent !== undefined) out.idempotentHint = idempotent;
  if (openWorld !== undefined) out.openWorldHint = openWorld;
  return out;
}
