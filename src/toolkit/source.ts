import type { Tool } from './tool.js';

/**
 * The sources of a run's tools, in the fixed order the namespace is built in. The order decides
 * nothing about who wins a name (a collision aborts); it makes the error and the listing stable.
 */
export const SOURCE_ORDER = ['application', 'human', 'memory', 'knowledge', 'a2a', 'delegate', 'mcp', 'custom'] as const;
export type SourceName = (typeof SOURCE_ORDER)[number];

/** Why a tool was left out of a selection. */
export const FILTER_REASONS = [
  'denied', // tagged ai:deny
  'not_included', // include filters are set and the tool matched none
  'excluded', // an exclude filter matched
  'not_exposed', // a serving surface: the tool does not declare exposure there
  'gated', // a serving surface that cannot ask anyone: the tool is confirm-gated
  'not_confirmable', // a serving surface: the tool cannot report whether it is gated
  'collision', // a later list change claimed a name already taken (skipped, not fatal)
  'unusable_schema', // its input schema cannot be offered to a model (the root is not an object)
  'invalid_name', // its name is one the model APIs refuse (letters, digits, "_" and "-", at most 64)
  'unusable', // a later list change brought a descriptor no model API accepts (skipped, not fatal)
] as const;
export type FilterReason = (typeof FILTER_REASONS)[number];

/** A tool left out of a selection, with the reason, for logs and `fisk info --all`. */
export interface FilteredTool {
  readonly name: string;
  readonly source: SourceName;
  /** The peer alias or MCP server name, for sources with several members. */
  readonly label?: string;
  readonly reason: FilterReason;
  /** The rule in words: which pattern or tag matched. */
  readonly detail: string;
}

/** One source's already-built tools, plus what that source already left out. */
export interface ToolSource {
  readonly source: SourceName;
  readonly label?: string;
  readonly tools: readonly Tool[];
  readonly filtered?: readonly FilteredTool[];
}

/** A condition the operator should hear about; nothing here stops a run. */
export const TOOL_WARNING_CODES = [
  'unknown_ai_tag',
  'behavior_conflict',
  'confirm_tag_unmatched',
  'tool_search_unavailable',
  'global_flag_clash',
  'unusable_schema',
  'invalid_name',
] as const;
export type ToolWarningCode = (typeof TOOL_WARNING_CODES)[number];

/** One warning about the selected tools, with a closed code and a message naming what to change. */
export interface ToolWarning {
  readonly code: ToolWarningCode;
  readonly message: string;
  /** The tool concerned, when there is one. */
  readonly tool?: string;
}

/** `application`, `memory built-in`, `MCP server "x"`: how a source is named in messages. */
export function describeSource(source: SourceName, label?: string): string {
  switch (source) {
    case 'application':
      return 'the application';
    case 'human':
      return 'the human-in-the-loop built-ins';
    case 'memory':
      return 'the memory built-ins';
    case 'knowledge':
      return 'the knowledge built-ins';
    case 'a2a':
      return label === undefined ? 'a remote agent' : `remote agent ${JSON.stringify(label)}`;
    case 'delegate':
      return label === undefined ? 'the delegation tools' : `the delegation tool of remote agent ${JSON.stringify(label)}`;
    case 'mcp':
      return label === undefined ? 'an MCP server' : `MCP server ${JSON.stringify(label)}`;
    case 'custom':
      return 'the custom tools';
    default: {
      const never: never = source;
      return never;
    }
  }
}
