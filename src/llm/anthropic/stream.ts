import { codeForStatus, LlmError } from '../errors.js';
import { isObject, obj, str } from '../json-guards.js';
import type { JsonObject } from '../json-guards.js';
import type { Response, StreamObserver } from '../provider.js';
import { objectMembers, rootMemberSpan } from '../raw-json.js';
import { signatureBytes } from '../signature.js';
import { eventJson, report, sseEvents } from '../sse.js';
import type { ContentBlock } from '../types.js';
import { stopReason } from '../types.js';
import { decodeContentBlock, decodeUsage } from './decode.js';

/** One content block while it streams in. */
interface Building {
  readonly type: string;
  /** The block exactly as `content_block_start` sent it. */
  readonly startRaw: string;
  readonly start: JsonObject;
  text: string;
  signature: string;
  json: string;
}

/**
 * Reads a streamed Messages API answer (`message_start`, `content_block_*`, `message_delta`,
 * `message_stop`) into the response the same call unstreamed returns. Text and thinking fragments
 * go to the observer as they arrive; a tool call's input is the concatenation of its
 * `input_json_delta` fragments, so its bytes are the model's own; any other block is the JSON text
 * its start event carried (with its streamed input put in place), decoded as the unstreamed answer
 * decodes it. An `error` event fails the call with the class its error type names.
 */
export async function decodeMessageStream(body: ReadableStream<Uint8Array> | null, observer: StreamObserver): Promise<Response> {
  const blocks: Building[] = [];
  let model: string | undefined;
  let usage: Record<string, unknown> = {};
  let stop = '';
  let stopped = false;
  for await (const event of sseEvents(body)) {
    const data = eventJson(event);
    if (!isObject(data)) continue;
    switch (data.type) {
      case 'message_start': {
        const message = obj(data, 'message');
        if (typeof message?.model === 'string') model = message.model;
        usage = { ...obj(message, 'usage') };
        break;
      }
      case 'content_block_start': {
        const start = obj(data, 'content_block') ?? {};
        const span = rootMemberSpan(event.data, 'content_block');
        const startRaw = span === undefined ? '{}' : event.data.slice(span.start, span.end);
        const type = str(start, 'type');
        blocks[index(data)] = {
          type,
          startRaw,
          start,
          text: str(start, type === 'thinking' ? 'thinking' : 'text'),
          signature: str(start, 'signature'),
          json: '',
        };
        break;
      }
      case 'content_block_delta': {
        const block = blocks[index(data)];
        const delta = obj(data, 'delta') ?? {};
        if (block === undefined) throw new LlmError('decode', 'the streamed answer changed a block it never started');
        switch (delta.type) {
          case 'text_delta': {
            const text = str(delta, 'text');
            block.text += text;
            report(observer, 'text', text);
            break;
          }
          case 'thinking_delta': {
            const thinking = str(delta, 'thinking');
            block.text += thinking;
            report(observer, 'thinking', thinking);
            break;
          }
          case 'signature_delta':
            block.signature += str(delta, 'signature');
            break;
          case 'input_json_delta':
            block.json += str(delta, 'partial_json');
            break;
          default:
            // citations and any later delta kind: the unstreamed answer keeps none of them either
            break;
        }
        break;
      }
      case 'message_delta': {
        const messageDelta = obj(data, 'delta');
        if (typeof messageDelta?.stop_reason === 'string') stop = messageDelta.stop_reason;
        for (const [key, value] of Object.entries(obj(data, 'usage') ?? {})) if (value !== null && value !== undefined) usage[key] = value;
        break;
      }
      case 'message_stop':
        stopped = true;
        break;
      case 'error': {
        const err = obj(data, 'error') ?? {};
        const status = STREAM_ERROR_STATUS[str(err, 'type')] ?? 500;
        throw new LlmError(codeForStatus(status), `Anthropic reported an error mid-answer: ${str(err, 'message') || str(err, 'type')}`);
      }
      default:
        // ping and any later event kind
        break;
    }
  }
  if (!stopped) throw new LlmError('network', 'the streamed answer ended before message_stop');
  const content: ContentBlock[] = [];
  for (const block of blocks) if (block !== undefined) content.push(finish(block));
  const response: Response = {
    message: { role: 'assistant', content },
    stopReason: stopReason(stop),
    usage: decodeUsage(usage),
  };
  return model === undefined ? response : { ...response, model };
}

/** The HTTP status an in-stream error type stands for, so it lands in the same class. */
const STREAM_ERROR_STATUS: Readonly<Record<string, number>> = {
  overloaded_error: 529,
  rate_limit_error: 429,
  invalid_request_error: 400,
  authentication_error: 401,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  api_error: 500,
};

function index(data: JsonObject): number {
  const i = data.index;
  if (typeof i !== 'number' || !Number.isInteger(i) || i < 0 || i > 10_000)
    throw new LlmError('decode', 'the streamed answer has a block without a valid index');
  return i;
}

function finish(b: Building): ContentBlock {
  switch (b.type) {
    case 'text':
      return { type: 'text', text: b.text };
    case 'thinking':
      return b.signature === ''
        ? { type: 'thinking', text: b.text }
        : { type: 'thinking', text: b.text, signature: signatureBytes(b.signature) };
    case 'tool_use':
      return { type: 'tool_use', id: str(b.start, 'id'), name: str(b.start, 'name'), input: b.json === '' ? startInput(b) : b.json };
    default:
      return decodeContentBlock(b.json === '' ? b.startRaw : withInput(b.startRaw, b.json));
  }
}

function startInput(b: Building): string {
  const span = objectMembers(b.startRaw, 0).get('input');
  return span === undefined ? '{}' : b.startRaw.slice(span.start, span.end);
}

/** The block text with its `input` member's value replaced by the streamed input. */
function withInput(raw: string, input: string): string {
  const span = objectMembers(raw, 0).get('input');
  if (span === undefined) return raw;
  return `${raw.slice(0, span.start)}${input}${raw.slice(span.end)}`;
}
