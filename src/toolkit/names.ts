/**
 * The tool name rule every source shares: model APIs accept letters, digits, `_` and `-`, at most
 * 64 characters, and one bad name would fail every request that carries the whole list.
 */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/** Whether `name` can be sent to a model API as a tool name. */
export function isValidToolName(name: string): boolean {
  return TOOL_NAME_PATTERN.test(name);
}
