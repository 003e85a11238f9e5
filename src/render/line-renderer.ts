/**
 * Renders the agent's event stream as lines for a line surface. Pure: an event becomes zero or
 * more lines, the same for a live run, a remote one and a journal replay (`fisk session show
 * --transcript`), so the three read alike.
 */
import type { AgentEvent, ApprovalEvent, ExecInfo } from '../agent/events.js';
import { formatCall, oneLine, stripControl } from '../agent/sanitize.js';
import { capLine } from './cap.js';

/** What a line surface shows beyond the defaults. */
export interface LineOptions {
  /** Show tool results (`--tool-output`); without it, results are dropped rather than folded. */
  readonly toolOutput: boolean;
  /** Show prose that accompanied tool calls, self-rendered calls and phase changes. */
  readonly verbose: boolean;
  /**
   * Tool call and result lines are cut to this many characters, with a marker (the terminal
   * width at a terminal); uncut when absent, as in a transcript.
   */
  readonly width?: number;
}

/** The prefixes shared with the full-screen view. */
export const CALL_PREFIX = '-> ';
export const RESULT_PREFIX = '<- ';
export const WARNING_PREFIX = 'warning: ';
export const THINKING_PREFIX = 'thinking: ';
export const APPROVAL_PREFIX = 'approval: ';

function indentRest(text: string, prefix: string): string[] {
  const lines = stripControl(text).replace(/\n+$/, '').split('\n');
  return lines.map((l, i) => (i === 0 ? `${prefix}${l}` : `${' '.repeat(prefix.length)}${l}`));
}

/**
 * A tool result as shown: a command's envelope unwrapped to its output, a non-zero exit kept, and
 * a silent success said explicitly rather than left blank.
 */
export function resultLines(output: string, isError: boolean, exec: ExecInfo | undefined): string[] {
  const body = output.trim() === '' ? '' : output;
  let head = '';
  if (exec !== undefined && exec.exit_code !== 0) head = `exit ${exec.exit_code}: `;
  else if (isError) head = 'error: ';
  if (body === '') {
    const silent = exec !== undefined ? (exec.exit_code === 0 ? 'ok (no output)' : 'no output') : isError ? 'no output' : 'ok (no output)';
    return [`${RESULT_PREFIX}${head}${silent}`];
  }
  const lines = indentRest(body, `${RESULT_PREFIX}${head}`);
  if (exec?.truncated === true) lines.push(`${' '.repeat(RESULT_PREFIX.length)}(output truncated)`);
  return lines;
}

/** What the gate decided, in words: the decision, the tag that gated the call, and what the operator said. */
export function approvalText(event: ApprovalEvent): string {
  const said = event.reason === undefined ? '' : `; the operator said: ${oneLine(event.reason)}`;
  return `${APPROVAL_PREFIX}${oneLine(event.tool)} ${approvalPhrase(event.outcome)} (gated by ${oneLine(event.trigger)})${said}`;
}

function approvalPhrase(outcome: ApprovalEvent['outcome']): string {
  switch (outcome) {
    case 'approved_once':
      return 'approved once';
    case 'approved_for_run':
      return 'approved for the rest of this run';
    case 'approved_by_grant':
      return 'allowed by the approval for the rest of this run';
    case 'approved_earlier':
      return 'approved while the run was stopped';
    case 'declined':
      return 'declined';
    case 'declined_earlier':
      return 'declined while the run was stopped';
    case 'no_operator':
      return 'declined: nobody here can approve it';
    case 'cancelled':
      return 'not decided: the run was cancelled';
    default: {
      const never: never = outcome;
      return String(never);
    }
  }
}

/** The reason of a denial (`{"allowed":false,"reason":...}`), else the text as it is; what the operator said to do instead comes first. */
function refusalText(output: string): string {
  try {
    const v: unknown = JSON.parse(output);
    if (typeof v === 'object' && v !== null && (v as Record<string, unknown>)['allowed'] === false) {
      const reason = (v as Record<string, unknown>)['reason'];
      const said = (v as Record<string, unknown>)['operator_reason'];
      if (typeof said === 'string') return `declined by the operator, who said: ${said}`;
      if (typeof reason === 'string') return reason;
    }
  } catch {
    // not a denial body
  }
  return output;
}

/** The lines one event renders to on stderr. The final answer is not among them: it goes to stdout. */
export function renderEvent(event: AgentEvent, options: LineOptions): string[] {
  const lines = eventLines(event, options);
  const width = options.width;
  if (width === undefined || (event.type !== 'tool_call' && event.type !== 'tool_result')) return lines;
  return lines.map((l) => capLine(l, width));
}

function eventLines(event: AgentEvent, options: LineOptions): string[] {
  switch (event.type) {
    case 'tool_call':
      if (event.presentation === 'self-rendered' && !options.verbose) return [];
      // an imported tool says where it ran, ahead of its arguments so a cut line still says it
      return [`${CALL_PREFIX}${formatCall(event.name, event.input, event.via)}`];
    case 'tool_result':
      // a call that never ran is always shown, so a refusal never reads as a call that ran
      if (event.refused !== undefined) return [`${RESULT_PREFIX}refused: ${oneLine(refusalText(event.output))}`];
      return options.toolOutput ? resultLines(event.output, event.is_error, event.exec) : [];
    case 'text_fragment':
      // streamed text goes to stdout as it arrives; the lines on stderr never carry the answer
      return [];
    case 'progress':
      return [`${RESULT_PREFIX}${oneLine(event.text)}`];
    case 'warning':
      return [`${WARNING_PREFIX}${oneLine(event.text)}`];
    case 'thinking':
      return indentRest(event.text, THINKING_PREFIX);
    case 'text':
      return !event.final && options.verbose ? indentRest(event.text, '') : [];
    case 'status':
      return options.verbose ? [`[iteration ${event.iteration + 1}: ${event.phase}]`] : [];
    case 'question':
      // the prompter draws its own question; a replay has no prompter and shows nothing
      return [];
    case 'approval':
      return [approvalText(event)];
    case 'crash':
      return ['', `panic: ${oneLine(event.message)}`, '', ...stripControl(event.stack).split('\n')];
    default: {
      const never: never = event;
      return [`${WARNING_PREFIX}unknown event ${JSON.stringify(never)}`];
    }
  }
}
