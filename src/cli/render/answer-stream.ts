/**
 * The answer as the model writes it: at a terminal, `fisk run` asks the provider to stream and
 * writes each fragment of text to stdout as it arrives. Prose the model writes before a tool call
 * streams too (it cannot be told apart until the turn ends). The stream keeps what the last model
 * turn wrote, so the end of the run can tell whether the answer has already been shown whole.
 *
 * With a markdown renderer the text is set out block by block: a block is written, rendered, once
 * the blank line after it arrives (never inside a code fence), and the rest when the turn ends.
 */
import type { AgentEvent } from '../../agent/events.js';
import { stripControl } from '../../agent/sanitize.js';
import type { MarkdownRenderer } from '../../render/answer.js';

/** Where the text before the last blank line outside a code fence ends; -1 for none. */
function blockEnd(text: string): number {
  let fenced = false;
  let end = -1;
  let at = 0;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const next = at + line.length + 1;
    if (!fenced && line.trim() === '' && at > 0 && next <= text.length) end = at;
    at = next;
  }
  return end;
}

export class AnswerStream {
  #turn = '';
  #wrote = false;
  #atLineStart = true;
  /** Text not yet rendered (with a markdown renderer). */
  #pending = '';

  constructor(
    private readonly out: NodeJS.WritableStream,
    private readonly markdown?: MarkdownRenderer,
  ) {}

  /** Writes a fragment; a new model turn starts the record of the current turn afresh. */
  observe(event: AgentEvent): void {
    if (event.type === 'status' && event.phase === 'model_call') {
      this.#flush();
      // prose before a tool call ends its line, so the next turn's text starts on its own line
      if (!this.#atLineStart) this.#write('\n');
      this.#turn = '';
      return;
    }
    // a turn's text is complete: end its line before stderr lines (a tool call) follow it
    if (event.type === 'text') {
      this.#flush();
      if (!this.#atLineStart) this.#write('\n');
      return;
    }
    if (event.type !== 'text_fragment') return;
    this.#turn += event.text;
    const markdown = this.markdown;
    if (markdown === undefined) return this.#write(stripControl(event.text));
    this.#pending += stripControl(event.text);
    const end = blockEnd(this.#pending);
    if (end < 0) return;
    const block = this.#pending.slice(0, end);
    this.#pending = this.#pending.slice(end).replace(/^\s*\n/, '');
    if (block.trim() !== '') this.#write(`${markdown(block)}\n\n`);
  }

  /** Renders what is left of the turn's text. */
  #flush(): void {
    const rest = this.#pending;
    this.#pending = '';
    if (rest.trim() !== '' && this.markdown !== undefined) this.#write(`${this.markdown(rest)}\n`);
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
    this.#flush();
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
