/**
 * Converts the neutral conversation types of `llm` to and from the journal's block shape. The
 * thinking signature travels as standard base64; tool inputs and provider blocks are embedded as
 * JSON (text that is not valid JSON, or nests deeper than `EMBED_MAX_DEPTH`, is kept verbatim as a
 * JSON string, so nothing the model or provider produced is lost or reinterpreted).
 */
import type { ContentBlock, Message, ToolResultBlock } from '../llm/types.js';
import { jsonTextDepth } from '../util/json-depth.js';
import { RunStateError } from './errors.js';
import type { WireBlock, WireMessage, WireToolResult } from './records.js';

/**
 * Past this nesting a value is kept verbatim as a JSON string: records are serialised with the
 * recursive `JSON.stringify`, and a model can nest a tool call's arguments thousands deep.
 */
export const EMBED_MAX_DEPTH = 256;

function embedJson(text: string): unknown {
  if (jsonTextDepth(text, EMBED_MAX_DEPTH) > EMBED_MAX_DEPTH) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function extractJson(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** A neutral tool result block as stored. */
export function encodeToolResult(block: ToolResultBlock): WireToolResult {
  const base =
    block.isError === true
      ? { tool_use_id: block.toolUseId, content: block.content, is_error: true }
      : { tool_use_id: block.toolUseId, content: block.content };
  const images = block.images ?? [];
  return images.length === 0 ? base : { ...base, images: images.map((i) => ({ media_type: i.mediaType, data: i.data })) };
}

/** A stored tool result as a neutral block. */
export function decodeToolResult(wire: WireToolResult): ToolResultBlock {
  const base: ToolResultBlock =
    wire.is_error === true
      ? { type: 'tool_result', toolUseId: wire.tool_use_id, content: wire.content, isError: true }
      : { type: 'tool_result', toolUseId: wire.tool_use_id, content: wire.content };
  const images = wire.images ?? [];
  return images.length === 0 ? base : { ...base, images: images.map((i) => ({ mediaType: i.media_type, data: i.data })) };
}

/** One neutral block as stored. */
export function encodeBlock(block: ContentBlock): WireBlock {
  switch (block.type) {
    case 'text':
      return { text: { text: block.text } };
    case 'thinking': {
      const thinking: { text?: string; signature?: string } = {};
      if (block.text !== '') thinking.text = block.text;
      if (block.signature !== undefined && block.signature.length > 0) {
        thinking.signature = Buffer.from(block.signature).toString('base64');
      }
      return { thinking };
    }
    case 'tool_use':
      return { tool_use: { id: block.id, name: block.name, input: embedJson(block.input) } };
    case 'tool_result':
      return { tool_result: encodeToolResult(block) };
    case 'provider':
      return { provider: { kind: block.kind, raw: embedJson(block.raw) } };
    default: {
      const never: never = block;
      throw new RunStateError('schema', `unknown content block ${JSON.stringify(never)}`);
    }
  }
}

/** One stored block as a neutral block. */
export function decodeBlock(wire: WireBlock): ContentBlock {
  if ('text' in wire) return { type: 'text', text: wire.text.text };
  if ('thinking' in wire) {
    const text = wire.thinking.text ?? '';
    const sig = wire.thinking.signature;
    return sig === undefined || sig === ''
      ? { type: 'thinking', text }
      : { type: 'thinking', text, signature: new Uint8Array(Buffer.from(sig, 'base64')) };
  }
  if ('tool_use' in wire) {
    return { type: 'tool_use', id: wire.tool_use.id, name: wire.tool_use.name, input: extractJson(wire.tool_use.input) };
  }
  if ('tool_result' in wire) return decodeToolResult(wire.tool_result);
  return { type: 'provider', kind: wire.provider.kind, raw: extractJson(wire.provider.raw) };
}

/** A neutral message as stored. */
export function encodeMessage(message: Message): WireMessage {
  return { role: message.role, content: message.content.length === 0 ? null : message.content.map(encodeBlock) };
}

/** A stored message as a neutral message. */
export function decodeMessage(wire: WireMessage): Message {
  return { role: wire.role, content: (wire.content ?? []).map(decodeBlock) };
}
