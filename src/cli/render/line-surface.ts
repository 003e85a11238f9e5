/** An event sink writing rendered lines to a stream (stderr for `fisk run`). */
import type { AgentEvent, EventSink } from '../../agent/events.js';
import { renderEvent } from './line-renderer.js';
import type { LineOptions } from './line-renderer.js';

export class LineSurface implements EventSink {
  constructor(
    private readonly stream: NodeJS.WritableStream,
    private readonly options: LineOptions,
  ) {}

  emit(event: AgentEvent): void {
    for (const line of renderEvent(event, this.options)) this.stream.write(`${line}\n`);
  }
}
