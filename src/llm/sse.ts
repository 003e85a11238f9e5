import { LlmError } from './errors.js';
import type { StreamObserver } from './provider.js';

/** One server-sent event: its name (empty when unnamed) and its data exactly as sent. */
export interface SseEvent {
  readonly event: string;
  readonly data: string;
}

/**
 * The events of a `text/event-stream` body, in order. The data is kept as text (several `data:`
 * lines joined with a newline, as the format defines), so a decoder can cut exact bytes out of it;
 * comments and unknown fields are skipped. Refuses a response without a body.
 */
export async function* sseEvents(body: ReadableStream<Uint8Array> | null): AsyncGenerator<SseEvent> {
  if (body === null) throw new LlmError('decode', 'the streamed answer has no body');
  const decoder = new TextDecoder();
  let buffer = '';
  let event = '';
  let data: string[] = [];
  const reader = body.getReader();
  try {
    for (;;) {
      const chunk = await reader.read();
      buffer += chunk.done ? decoder.decode() : decoder.decode(chunk.value, { stream: true });
      let at: number;
      while ((at = lineEnd(buffer)) >= 0) {
        const line = buffer.slice(0, at);
        buffer = buffer.slice(buffer.charCodeAt(at) === 0x0d && buffer.charCodeAt(at + 1) === 0x0a ? at + 2 : at + 1);
        if (line === '') {
          if (data.length > 0) yield { event, data: data.join('\n') };
          event = '';
          data = [];
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? '' : line.slice(colon + 1);
        if (value.startsWith(' ')) value = value.slice(1);
        if (field === 'data') data.push(value);
        else if (field === 'event') event = value;
      }
      if (chunk.done) break;
    }
    if (data.length > 0) yield { event, data: data.join('\n') };
  } finally {
    reader.releaseLock();
    await body.cancel().catch(() => undefined);
  }
}

function lineEnd(text: string): number {
  const lf = text.indexOf('\n');
  const cr = text.indexOf('\r');
  if (cr < 0) return lf;
  // A lone CR at the very end may be the first half of a CRLF still in flight.
  if (cr === text.length - 1) return lf >= 0 && lf < cr ? lf : -1;
  return lf < 0 ? cr : Math.min(lf, cr);
}

/** The parsed data of one event, or `LlmError('decode')` naming the event. */
export function eventJson(e: SseEvent): unknown {
  try {
    return JSON.parse(e.data) as unknown;
  } catch (err) {
    throw new LlmError('decode', `the streamed event ${e.event || '(unnamed)'} is not valid JSON`, { cause: err });
  }
}

/** Whether an observer asks for streaming at all. */
export function wantsStream(observer: StreamObserver | undefined): observer is StreamObserver {
  return observer !== undefined && (observer.onText !== undefined || observer.onThinking !== undefined);
}

/** Reports one fragment; an observer that throws is ignored, so a display never fails the call. */
export function report(observer: StreamObserver, kind: 'text' | 'thinking', delta: string): void {
  if (delta === '') return;
  try {
    if (kind === 'text') observer.onText?.(delta);
    else observer.onThinking?.(delta);
  } catch {
    // A display failure is the display's concern; the call goes on.
  }
}
