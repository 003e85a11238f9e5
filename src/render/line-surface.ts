/** An event sink writing rendered lines to a stream (stderr for `fisk run`). */
import type { AgentEvent, EventSink } from '../agent/events.js';
import { paint, toneFor } from './line-colour.js';
import { renderEvent } from './line-renderer.js';
import type { LineOptions } from './line-renderer.js';

/** How a line surface draws. */
export interface SurfaceStyle {
  /**
   * Colour the lines (tool calls dim, warnings yellow, refusals red). Decide it with
   * `shouldColorLines(stream.isTTY, noColorFlag, env)`; off unless asked for.
   */
  readonly color: boolean;
}

export class LineSurface implements EventSink {
  constructor(
    private readonly stream: NodeJS.WritableStream,
    private readonly options: LineOptions,
    private readonly style: SurfaceStyle = { color: false },
  ) {}

  emit(event: AgentEvent): void {
    const tone = this.style.color ? toneFor(event) : 'plain';
    for (const line of renderEvent(event, this.options)) this.stream.write(`${paint(line, tone)}\n`);
  }
}
