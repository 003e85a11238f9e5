/**
 * The provider-neutral conversation model. Nothing here names a vendor: `llm/anthropic` and
 * `llm/openai` translate to and from these shapes, and every other module speaks only them.
 */

/** Who wrote a message. */
export type Role = 'user' | 'assistant';

/** Prose from the model, or an operator prompt. */
export interface TextBlock {
  readonly type: 'text';
  readonly text: string;
}

/**
 * Model reasoning. The signature is opaque bytes that the provider requires back unchanged on the
 * next turn; the neutral model preserves it and never inspects or renders it.
 */
export interface ThinkingBlock {
  readonly type: 'thinking';
  readonly text: string;
  readonly signature?: Uint8Array;
}

/**
 * A tool call. `input` is the raw JSON text the model produced, kept byte for byte so arguments
 * never pass through a schema-shaped intermediate.
 */
export interface ToolUseBlock {
  readonly type: 'tool_use';
  readonly id: string;
  readonly name: string;
  readonly input: string;
}

/** The image types a tool result may carry: the ones every provider that takes images accepts. */
export const TOOL_IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
export type ToolImageType = (typeof TOOL_IMAGE_TYPES)[number];

/** An image a tool returned, as standard base64. */
export interface ToolImage {
  readonly mediaType: ToolImageType;
  readonly data: string;
}

/**
 * A tool result answering one tool call: its text, and the images it returned. `content` names
 * every image in words too, so a provider that takes no images in tool results sends the text
 * alone and the model still learns what it is not shown.
 */
export interface ToolResultBlock {
  readonly type: 'tool_result';
  readonly toolUseId: string;
  readonly content: string;
  readonly isError?: boolean;
  /** Sent as image blocks by the providers that take them in tool results; absent when none. */
  readonly images?: readonly ToolImage[];
}

/**
 * The escape hatch for provider-specific blocks the neutral model does not name (server tool
 * use, tool search results, redacted thinking, image or multi-block tool results). `kind` is the
 * provider's own type discriminator and `raw` its faithful JSON text.
 */
export interface ProviderBlock {
  readonly type: 'provider';
  readonly kind: string;
  readonly raw: string;
}

/** One content block: exactly one of the five kinds. */
export type ContentBlock = TextBlock | ThinkingBlock | ToolUseBlock | ToolResultBlock | ProviderBlock;

/** The closed set of content block kinds. */
export const CONTENT_BLOCK_TYPES = ['text', 'thinking', 'tool_use', 'tool_result', 'provider'] as const;
export type ContentBlockType = (typeof CONTENT_BLOCK_TYPES)[number];

/** A role and its content blocks. */
export interface Message {
  readonly role: Role;
  readonly content: readonly ContentBlock[];
}

/**
 * One system prompt segment. The system prompt is a list so a provider that supports separate
 * blocks can place a cache breakpoint on the last one.
 */
export interface SystemBlock {
  readonly text: string;
}

/**
 * Three states: `unset` sends no thinking parameter at all, `on` asks for thinking, `off` asks
 * for it explicitly disabled (and strips thinking blocks from the history sent).
 */
export type ThinkingMode = 'unset' | 'on' | 'off';

/**
 * Token accounting for one call. `thinking` is counted inside `output`, never added to it.
 */
export interface Usage {
  readonly input: number;
  readonly output: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
  readonly thinking: number;
}

/** A usage of all zeros. */
export const ZERO_USAGE: Usage = Object.freeze({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, thinking: 0 });

/** Adds two usages tier by tier. */
export function addUsage(a: Usage, b: Usage): Usage {
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheWrite: a.cacheWrite + b.cacheWrite,
    thinking: a.thinking + b.thinking,
  };
}

/** The stop reasons this build understands. Anything else is carried as `other` with its raw value. */
export const KNOWN_STOP_REASONS = ['end_turn', 'max_tokens', 'tool_use', 'pause_turn', 'refusal', 'stop_sequence'] as const;
export type KnownStopReason = (typeof KNOWN_STOP_REASONS)[number];

/**
 * Why the model stopped: the unified value beside the provider's raw one, so an unknown reason is
 * passed through rather than lost.
 */
export interface StopReason {
  readonly unified: KnownStopReason | 'other';
  readonly raw: string;
}

/** Maps a provider's raw stop reason onto the neutral vocabulary, keeping the raw value. */
export function stopReason(raw: string): StopReason {
  const known = (KNOWN_STOP_REASONS as readonly string[]).includes(raw);
  return { unified: known ? (raw as KnownStopReason) : 'other', raw };
}

/**
 * A tool definition as sent to the model. `deferLoading` asks a provider with tool search to keep
 * the definition out of the prompt until the model searches for it.
 */
export interface ToolDef {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  readonly deferLoading: boolean;
}

/**
 * Sent in place of a tool output with no text: the APIs reject an empty text, and the model is
 * better told plainly that the tool said nothing. Empty text blocks are dropped by every encoder.
 */
export const EMPTY_TOOL_OUTPUT = '(no output)';

/** A tool output as an encoder sends it: never empty. */
export function toolOutputText(content: string): string {
  return content === '' ? EMPTY_TOOL_OUTPUT : content;
}

/**
 * A tool result's text for a provider that takes no images in tool results: the text, which names
 * each image, and a line saying they are not shown.
 */
export function toolOutputWithoutImages(block: ToolResultBlock): string {
  const text = toolOutputText(block.content);
  const n = block.images?.length ?? 0;
  if (n === 0) return text;
  return `${text}\n[${n === 1 ? 'the image is' : `the ${n} images are`} not shown: this model endpoint takes no images in tool results]`;
}
