/**
 * How a tool call is written on one line for a person: `name key=value ...` with keys sorted and
 * control sequences removed. Every surface (the line surface, the approval prompt, an MCP
 * elicitation, a replayed journal) renders calls through here, so one call reads the same
 * everywhere and a model cannot draw on an operator's terminal through an argument.
 */
import { revealInvisible } from './shell-quote.js';
import { sortedJson } from './sorted-json.js';
import { cleanText, oneLine } from './terminal-text.js';

const BARE = /^[A-Za-z0-9_./:@+,=-]+$/;

// JSON quoting shows where a padded value ends and escapes control characters; what JSON leaves
// raw but a person cannot see (zero-width, bidirectional controls) is spelled out as \uXXXX.
function renderValue(value: unknown): string {
  if (typeof value === 'string') return BARE.test(value) ? value : revealInvisible(JSON.stringify(value));
  if (value === undefined) return 'null';
  // written without recursion: a model can nest its arguments thousands of levels deep
  return revealInvisible(sortedJson(value));
}

/**
 * One line describing a call: `name key=value ...`, or `name (on peer) key=value ...` for an
 * imported tool, with keys sorted, because a decoded object has no order and a line that changed
 * between renderings would read as two different calls. A value
 * that is not a plain word is JSON-quoted, and control, zero-width and bidirectional characters are
 * written as escapes, so a model can neither draw on the operator's terminal through an argument
 * nor hide part of one.
 */
export function formatCall(name: string, input: Readonly<Record<string, unknown>>, via?: string): string {
  const parts = [via === undefined ? cleanText(name) : `${cleanText(name)} (on ${cleanText(via)})`];
  for (const key of Object.keys(input).sort())
    parts.push(`${BARE.test(key) ? key : revealInvisible(JSON.stringify(key))}=${renderValue(input[key])}`);
  return oneLine(parts.join(' '));
}

/** Parses a tool input for display; anything that is not a JSON object shows as `{}`. */
export function inputObject(input: string): Readonly<Record<string, unknown>> {
  const text = input.trim();
  if (text === '') return {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // shown as empty; the pipeline answers the call with the parse error
  }
  return {};
}

/**
 * The line a person approves for a call: the tool's own rendering of the resolved call when it has
 * one (a command line), else the generic `name key=value` line. A rendering that throws (input the
 * tool refuses) falls back to the generic line.
 */
export function callLine(
  tool: { readonly name: string; readonly capabilities: { readonly describeCall: ((input: string) => string) | null } },
  input: string,
): string {
  const describe = tool.capabilities.describeCall;
  if (describe !== null) {
    try {
      const line = describe(input);
      if (line !== '') return oneLine(line);
    } catch {
      // input the tool refuses to render still gets the generic line
    }
  }
  return formatCall(tool.name, inputObject(input));
}
