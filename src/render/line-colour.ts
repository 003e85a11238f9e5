/**
 * Colour for the stderr lines of a line surface: tool calls dim, warnings yellow, refusals and
 * crashes red. Colour is a terminal affordance only: it is off when stderr is not a terminal, when
 * `NO_COLOR` is set to anything, and with `--no-color`, so logs and pipes get plain text.
 */
import type { AgentEvent } from '../agent/events.js';
import { refusalOf } from '../toolkit/invoke/messages.js';

export const LINE_TONES = ['plain', 'dim', 'yellow', 'red'] as const;
export type LineTone = (typeof LINE_TONES)[number];

/** Whether lines written to a stream are coloured. */
export function shouldColorLines(streamIsTty: boolean, noColorFlag: boolean, env: Readonly<Record<string, string | undefined>>): boolean {
  const noColorEnv = env['NO_COLOR'];
  return streamIsTty && !noColorFlag && (noColorEnv === undefined || noColorEnv === '');
}

/** The tone an event's lines are drawn in. */
export function toneFor(event: AgentEvent): LineTone {
  switch (event.type) {
    case 'tool_call':
    case 'approval':
    case 'progress':
      return 'dim';
    case 'warning':
      return 'yellow';
    case 'crash':
      return 'red';
    case 'tool_result':
      // a refusal the event does not mark (a peer's denial comes back as its output) reads as one too
      return event.refused !== undefined || refusalOf(event.output, false) === 'denied' ? 'red' : 'plain';
    case 'thinking':
    case 'text':
    case 'text_fragment':
    case 'status':
    case 'question':
      return 'plain';
    default: {
      const never: never = event;
      return never;
    }
  }
}

/** One line wrapped in the escape sequences for its tone; an empty or plain line is left alone. */
export function paint(line: string, tone: LineTone): string {
  if (line === '') return line;
  switch (tone) {
    case 'plain':
      return line;
    case 'dim':
      return `\u001b[2m${line}\u001b[22m`;
    case 'yellow':
      return `\u001b[33m${line}\u001b[39m`;
    case 'red':
      return `\u001b[31m${line}\u001b[39m`;
    default: {
      const never: never = tone;
      return never;
    }
  }
}
