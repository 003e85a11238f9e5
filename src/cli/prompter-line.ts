/**
 * The line-surface prompter: questions on stderr, answers read a line at a time from stdin. Every
 * choice list puts No first so a reflexive Enter declines, and end of input, an interrupt or a
 * stdin that is not a terminal all answer no. An approval answer that is not understood is asked
 * again. Nothing is asked unless stdin is a terminal: a piped
 * stdin is data, not a person.
 */
import { createInterface } from 'node:readline';
import type { Interface } from 'node:readline';
import { oneLine, stripControl } from '../agent/sanitize.js';
import { declineWith } from '../toolkit/tool.js';
import type { ApprovalAnswer, ApprovalDecision, ApprovalRequest, Prompter } from '../toolkit/tool.js';
import { raceAbort } from '../util/abort-race.js';
import { revealInvisible } from '../util/shell-quote.js';
import { APPROVAL_LINE_CAP, capLine } from '../render/cap.js';

/** The answer that declines and then asks what the agent should do instead. */
type LineApproval = ApprovalDecision | 'decline_with_reason';

const APPROVAL_ANSWERS: Readonly<Record<string, LineApproval>> = {
  '': 'decline',
  '1': 'decline',
  n: 'decline',
  no: 'decline',
  '2': 'once',
  y: 'once',
  yes: 'once',
  once: 'once',
  '3': 'always',
  a: 'always',
  always: 'always',
  '4': 'decline_with_reason',
  r: 'decline_with_reason',
  reason: 'decline_with_reason',
};

/**
 * What a typed answer to the approval question means: Enter and the No answers decline, the Yes
 * answers allow once, the always answers allow the tool for the run, the reason answers decline
 * and ask what the agent should do instead; anything else is undefined, so the question is asked
 * again rather than a typo counting as a final answer.
 */
export function parseApproval(line: string): LineApproval | undefined {
  const key = line.trim().toLowerCase();
  return Object.hasOwn(APPROVAL_ANSWERS, key) ? APPROVAL_ANSWERS[key] : undefined;
}

/** The streams a line prompter uses. */
export interface PrompterStreams {
  readonly input: NodeJS.ReadableStream & { isTTY?: boolean };
  readonly output: NodeJS.WritableStream;
}

/** A prompter reading answers from a line-oriented terminal. Call `close` when the run ends. */
export class LinePrompter implements Prompter {
  readonly #streams: PrompterStreams;
  #rl: Interface | undefined;
  #closed = false;
  /** Lines typed before a question was asked, or while none was pending. */
  readonly #buffered: string[] = [];
  #waiting: ((line: string | null) => void) | undefined;

  /** Resolved once the lines before the first question are on the screen; undefined once released (or never held). */
  #ready: Promise<void> | undefined;
  #release: () => void = () => undefined;

  /**
   * `held`: questions wait until `release()`, so a question a run asks at once (a resumed batch's
   * approval) comes after the conversation replayed before it, not in the middle of it.
   */
  constructor(streams: PrompterStreams, options: { readonly held?: boolean } = {}) {
    this.#streams = streams;
    if (options.held === true) {
      this.#ready = new Promise<void>((resolve) => {
        this.#release = () => {
          this.#ready = undefined;
          resolve();
        };
      });
    }
  }

  /** Lets held questions be asked. */
  release(): void {
    this.#release();
  }

  canPrompt(): boolean {
    return this.#streams.input.isTTY === true && !this.#closed;
  }

  #interface(): Interface {
    if (this.#rl === undefined) {
      const rl = createInterface({ input: this.#streams.input, terminal: false });
      rl.on('line', (line) => {
        const w = this.#waiting;
        if (w === undefined) {
          this.#buffered.push(line);
          return;
        }
        this.#waiting = undefined;
        w(line);
      });
      rl.on('close', () => {
        this.#closed = true;
        const w = this.#waiting;
        this.#waiting = undefined;
        w?.(null);
      });
      this.#rl = rl;
    }
    return this.#rl;
  }

  /** Writes `prompt` and reads one line; `null` on end of input or cancellation. */
  async #ask(prompt: string, signal: AbortSignal): Promise<string | null> {
    if (!this.canPrompt() || signal.aborted) return null;
    // only a held question waits: an unheld one is written at once, so what is typed after it answers it
    if (this.#ready !== undefined) {
      await raceAbort(this.#ready, signal, () => undefined);
      if (!this.canPrompt() || signal.aborted) return null;
    }
    this.#interface();
    // a question is a fresh decision: anything typed ahead of it is not an answer to it
    this.#buffered.length = 0;
    this.#streams.output.write(prompt);
    return new Promise<string | null>((resolve) => {
      const onAbort = (): void => {
        this.#waiting = undefined;
        this.#streams.output.write('\n');
        resolve(null);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.#waiting = (line) => {
        signal.removeEventListener('abort', onAbort);
        resolve(line);
      };
    });
  }

  async approve(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
    const tool = oneLine(request.tool);
    let text = [
      '',
      `Approval needed (${oneLine(request.trigger)}):`,
      // spelled out, never stripped: a character that vanished here would still reach the command
      `  ${capLine(oneLine(revealInvisible(request.commandLine)), APPROVAL_LINE_CAP)}`,
      '  1) No, do not run it              (n, no)',
      '  2) Yes, run it once               (y, yes, once)',
      `  3) Yes, and allow ${tool} for the rest of this run (a, always)`,
      '  4) No, and tell the agent what to do instead (r, reason)',
      'Choose [1]: ',
    ].join('\n');
    for (;;) {
      const line = await this.#ask(text, signal);
      if (line === null) return 'decline';
      const decision = parseApproval(line);
      if (decision === undefined) {
        text = `Please answer 1, 2, 3 or 4 (or n, y, a, r) [1]: `;
        continue;
      }
      if (decision === 'decline_with_reason') {
        // a decline whatever follows: end of input or Ctrl-C here still declines, without words
        const said = await this.#ask('Tell the agent what to do instead (Enter for a plain no): ', signal);
        return said === null ? 'decline' : declineWith(said);
      }
      if (decision === 'always') this.#streams.output.write(`Allowed ${tool} for the rest of this run: fisk will not ask again for it.\n`);
      return decision;
    }
  }

  async confirm(question: string, signal: AbortSignal): Promise<boolean> {
    const answer = await this.#ask(`\n${stripControl(question)} [y/N]: `, signal);
    return answer !== null && /^\s*y(es)?\s*$/i.test(answer);
  }

  async select(question: string, options: readonly string[], signal: AbortSignal): Promise<string | null> {
    const lines = ['', stripControl(question), '  0) None of these'];
    options.forEach((o, i) => lines.push(`  ${i + 1}) ${oneLine(o)}`));
    lines.push('Choose [0]: ');
    const answer = (await this.#ask(lines.join('\n'), signal))?.trim();
    if (answer === undefined || !/^\d+$/.test(answer)) return null;
    return options[Number(answer) - 1] ?? null;
  }

  async input(question: string, signal: AbortSignal): Promise<string | null> {
    const answer = await this.#ask(`\n${stripControl(question)}\n> `, signal);
    return answer === null || answer.trim() === '' ? null : answer;
  }

  /** Stops reading stdin, so the process can exit; a held question is answered no. */
  close(): void {
    this.#closed = true;
    this.#release();
    this.#rl?.close();
  }
}
