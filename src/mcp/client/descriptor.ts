/**
 * Checks a third-party tool descriptor before it can reach a model API. Every definition travels
 * in one request, so one bad descriptor would fail every call of the run: it is refused at import,
 * naming the server and the tool. A name the APIs refuse and a missing description are not
 * refusals: the first is rewritten (see `naming.ts`) and the second replaced by the name.
 */
import { jsonValueExceeds } from '../../util/json-depth.js';

/** How deep an imported input schema may nest. Deeper schemas are refused rather than walked. */
export const MAX_SCHEMA_DEPTH = 32;

/** A descriptor that passed every check. */
export interface McpDescriptor {
  /** The server's own name for the tool, which calls use. */
  readonly name: string;
  /** Undefined when the server gave none (or only blanks). */
  readonly description: string | undefined;
  readonly inputSchema: Readonly<Record<string, unknown>>;
}

/** A descriptor's verdict: usable, or the reason in words (the tool's name when it has one). */
export type DescriptorVerdict =
  { readonly ok: true; readonly descriptor: McpDescriptor } | { readonly ok: false; readonly tool: string; readonly reason: string };

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A name as it may appear in a message: quoted, control characters escaped, long ones cut. */
export function shownName(name: string): string {
  return JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}...` : name);
}

/** Checks one entry of a `tools/list` answer; `position` names a tool that has no usable name. */
export function checkDescriptor(raw: unknown, position: number): DescriptorVerdict {
  const unnamed = `#${position + 1} in the list`;
  if (!isRecord(raw)) return { ok: false, tool: unnamed, reason: 'the entry is not an object' };
  const name = raw['name'];
  if (typeof name !== 'string' || name === '') return { ok: false, tool: unnamed, reason: 'it has no name' };
  const refuse = (reason: string): DescriptorVerdict => ({ ok: false, tool: shownName(name), reason });
  const given = raw['description'];
  const description = typeof given === 'string' && given.trim() !== '' ? given : undefined;
  const schema = raw['inputSchema'];
  if (!isRecord(schema)) return refuse('its input schema is not a JSON object');
  if (schema['type'] !== 'object') return refuse(`its input schema's root type is ${JSON.stringify(schema['type'] ?? null)}, not "object"`);
  if (jsonValueExceeds(schema, MAX_SCHEMA_DEPTH)) return refuse(`its input schema nests deeper than ${MAX_SCHEMA_DEPTH} levels`);
  return { ok: true, descriptor: { name, description, inputSchema: schema } };
}
