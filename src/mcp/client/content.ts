/**
 * What a tool call answered, as the text the model reads. A lone text block passes through as it
 * is; anything else (an image, several parts, an embedded resource) travels as the JSON of the
 * content array, so nothing the server sent is dropped or reinterpreted.
 */
import type { CompletedOutcome } from '../../toolkit/tool.js';

/** The parts of a `tools/call` answer that reach the model. */
export interface McpCallAnswer {
  readonly content?: readonly unknown[] | undefined;
  readonly structuredContent?: unknown;
  readonly isError?: boolean | undefined;
}

/** An MCP answer as an outcome; `content` keeps the blocks for a consumer that renders them natively. */
export interface McpOutcome extends CompletedOutcome {
  readonly content: readonly unknown[];
}

function loneText(content: readonly unknown[]): string | undefined {
  if (content.length !== 1) return undefined;
  const block = content[0];
  if (typeof block !== 'object' || block === null) return undefined;
  const rec = block as Record<string, unknown>;
  const text = rec['text'];
  // a block with more than the text (annotations, _meta) is kept whole
  const plain = Object.keys(rec).every((k) => k === 'type' || k === 'text');
  return rec['type'] === 'text' && typeof text === 'string' && text !== '' && plain ? text : undefined;
}

/** Maps an answer to an outcome. An empty answer becomes `[]`, never an empty text. */
export function outcomeOf(answer: McpCallAnswer): McpOutcome {
  const content = answer.content ?? [];
  const isError = answer.isError === true;
  const text = loneText(content);
  if (text !== undefined) return { status: 'completed', output: text, isError, content };
  if (content.length === 0 && answer.structuredContent !== undefined) {
    return { status: 'completed', output: JSON.stringify(answer.structuredContent), isError, content };
  }
  return { status: 'completed', output: JSON.stringify(content), isError, content };
}
