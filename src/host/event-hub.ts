/**
 * A run's event stream for any number of consumers. Every event is kept, so a consumer that
 * subscribes late (a second browser tab, a remote peer re-attaching) first receives what it
 * missed, in order, then the live stream.
 */
import type { AgentEvent, EventSink } from '../agent/events.js';

export class EventHub implements EventSink {
  readonly #history: AgentEvent[] = [];
  readonly #sinks = new Set<EventSink>();
  readonly #waiters = new Set<() => void>();
  #closed = false;

  emit(event: AgentEvent): void {
    if (this.#closed) return;
    this.#history.push(event);
    for (const s of this.#sinks) {
      try {
        s.emit(event);
      } catch {
        // one broken consumer must not stop the run or the other consumers
      }
    }
    this.#wake();
  }

  /** Replays what was emitted so far into `sink`, then delivers every later event. Returns the unsubscribe. */
  subscribe(sink: EventSink): () => void {
    for (const e of this.#history) sink.emit(e);
    this.#sinks.add(sink);
    return () => this.#sinks.delete(sink);
  }

  /** No more events will come; async iterators end after delivering what is left. */
  close(): void {
    this.#closed = true;
    this.#wake();
  }

  /** Every event from the first, ending when the hub closes. */
  async *events(): AsyncGenerator<AgentEvent> {
    let i = 0;
    for (;;) {
      while (i < this.#history.length) yield this.#history[i++] as AgentEvent;
      if (this.#closed) return;
      await new Promise<void>((resolve) => this.#waiters.add(resolve));
    }
  }

  #wake(): void {
    const all = [...this.#waiters];
    this.#waiters.clear();
    for (const w of all) w();
  }
}
