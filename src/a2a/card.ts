/**
 * Which tools an agent serves over a2a, and the card that advertises them. The card is computed
 * once from the selection, so what discovery advertises and what dispatch accepts cannot drift.
 */
import { isValidToolName } from '../toolkit/names.js';
import type { Tool } from '../toolkit/tool.js';
import { PROTOCOL_NAMESPACE } from './protocol.js';
import type { BodyOf, ToolDescriptor } from './types.js';

/** Why a tool is not served over a2a. */
export const A2A_DROP_REASONS = [
  'not_exposed', // the tool does not declare a2a exposure (the ceiling the rest sit under)
  'not_confirmable', // it cannot say whether it is gated: refused rather than served ungated
  'gated', // confirm-gated, and nobody on this surface can approve it
  'invalid_name', // the name cannot be a model tool name
  'no_description', // nothing for the caller's model to decide on
] as const;
export type A2aDropReason = (typeof A2A_DROP_REASONS)[number];

export interface DroppedTool {
  readonly name: string;
  readonly reason: A2aDropReason;
  readonly detail: string;
}

export interface ExposedSelection {
  readonly exposed: readonly Tool[];
  readonly dropped: readonly DroppedTool[];
}

function dropReason(tool: Tool): DroppedTool | undefined {
  const name = tool.name;
  if (!tool.a2aExposable()) return { name, reason: 'not_exposed', detail: `${tool.kind} tools are not served over a2a` };
  const gate = tool.capabilities.gate;
  if (gate === null) return { name, reason: 'not_confirmable', detail: 'the tool cannot report whether it needs approval' };
  if (gate.gated)
    return {
      name,
      reason: 'gated',
      detail: `tagged ${gate.trigger ?? 'for approval'}; nobody can approve a call over a2a (use ai:deny to hide a tool, not a gate)`,
    };
  if (!isValidToolName(name)) return { name, reason: 'invalid_name', detail: 'names must be 1-64 letters, digits, "_" or "-"' };
  if (tool.modelDescription.trim() === '') return { name, reason: 'no_description', detail: 'the tool has no description' };
  return undefined;
}

/** Splits tools into those served over a2a and those dropped, each with its reason, in input order. */
export function selectExposed(tools: readonly Tool[]): ExposedSelection {
  const exposed: Tool[] = [];
  const dropped: DroppedTool[] = [];
  for (const tool of tools) {
    const why = dropReason(tool);
    if (why === undefined) exposed.push(tool);
    else dropped.push(why);
  }
  return { exposed, dropped };
}

export type AgentCard = BodyOf<'io.choria.fisk-ai.v1.discovery.reply'>;

/**
 * The card for an identity and its served tools. Tools are described with their model-facing
 * description, so surviving tags reach the peer as text. An empty version is sent as `dev`.
 */
export function buildAgentCard(opts: {
  readonly name: string;
  readonly version: string;
  readonly description?: string;
  readonly tools: readonly Tool[];
}): AgentCard {
  const tools: ToolDescriptor[] = opts.tools.map((t) => ({ name: t.name, description: t.modelDescription, input_schema: t.inputSchema }));
  return Object.freeze({
    name: opts.name,
    version: opts.version === '' ? 'dev' : opts.version,
    ...(opts.description !== undefined && opts.description !== '' ? { description: opts.description } : {}),
    protocols: [PROTOCOL_NAMESPACE],
    tools,
  });
}
