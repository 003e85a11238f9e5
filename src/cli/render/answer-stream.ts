/**
 * The answer as the model writes it: at a terminal, `fisk run` asks the provider to stream and
 * writes each fragment of text to stdout as it arrives. Prose the model writes before a tool call
 * streams too (it cannot be told apart until the turn ends). The stream keeps what the last model
 * turn wrote, so the end of the run can tell whether the answer has already been shown whole.
 */
import type { AgentEvent } from '../../agent/events.js';
import { stripControl } from '../../agent/sanitize.js';

export class AnswerStream {
  #turn = '';
  #wrote = false;
  #atLineStart = true;

  constructor(private readonly out: NodeJS.WritableStream) {}

  /** Writes a fragment; a new model turn starts the record of the current turn afresh. */
  observe(event: AgentEvent): void {
    if (event.type === 'status' && event.phase === 'model_call') {
      // prose before a tool call ends its line, so the next turn's text starts on its own line
      if (!this.#atLineStart) this.#write('\n');
      this.#turn = '';
      return;
    }
    // a turn's text is complete: end its line before stderr lines (a tool call) follow it
    if (event.type === 'text') {
      if (!this.#atLineStart) this.#write('\n');
      return;
    }
    if (event.type !== 'text_fragment') return;
    this.#turn += event.text;
    this.#write(stripControl(event.text));
  }

  /** Whether anything was written to stdout. */
  get wrote(): boolean {
    return this.#wrote;
  }

  /**
   * Ends the streamed output for an answer: true when the last turn's fragments were exactly the
   * answer (it is on the screen; a final newline is added if missing), false when the answer must
   * still be printed. Text blocks are compared without their whitespace: the answer joins a turn's
   * blocks with a newline that the stream never carried.
   */
  finish(answer: string): boolean {
    // text blocks of one turn are joined by a newline in the answer, and streamed back to back
    const bare = (t: string): string => t.replace(/\s+/g, '');
    if (answer === '' || bare(this.#turn) !== bare(answer)) {
      if (!this.#atLineStart) this.#write('\n');
      return false;
    }
    if (!this.#atLineStart) this.#write('\n');
    return true;
  }

  #write(text: string): void {
    if (text === '') return;
    this.out.write(text);
    this.#wrote = true;
    this.#atLineStart = text.endsWith('\n');
  }
}
