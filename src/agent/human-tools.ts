/**
 * The human-in-the-loop built-ins (`harness.human_in_the_loop.enabled`): the model may ask the
 * operator to confirm, to choose, or to type something. Each denies by default: with nobody
 * present, at end of input or on an interrupt the answer is no / nothing. They are never exposed
 * over MCP or a2a, because the person they would reach is this run's operator, not a caller's.
 */
import { newFuncTool } from '../toolkit/functool/index.js';
import { Unanswered } from '../toolkit/tool.js';
import type { Outcome, Prompter, Tool } from '../toolkit/tool.js';
import { stripControl } from './sanitize.js';

/** The names of the human-in-the-loop tools, in the order they are added to a run. */
export const HUMAN_TOOL_NAMES = ['ask_human_confirm', 'ask_human_select', 'ask_human_input'] as const;
export type HumanToolName = (typeof HUMAN_TOOL_NAMES)[number];

/** The system prompt note a run carries when the human-in-the-loop tools are present. */
export const HUMAN_NOTE =
  'An operator is available through the ask_human_confirm, ask_human_select and ask_human_input tools. ' +
  'Use them when you need a decision or a value only a person can give; a missing answer means no.';

/**
 * The longest question asked, in characters. A longer one is refused rather than cut: an operator
 * must never answer a question whose end they were not shown.
 */
export const MAX_QUESTION = 2000;
/** The most choices `ask_human_select` offers, and the longest one, in characters. */
export const MAX_OPTIONS = 50;
export const MAX_OPTION = 200;

/** A question as shown: control characters removed and every line break collapsed into a space. */
function question(text: unknown): string {
  return stripControl(typeof text === 'string' ? text : '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The refusal for a question that cannot be asked, or undefined when it can. */
function badQuestion(q: string): Outcome | undefined {
  if (q === '') return refuse('question must be a non-empty string');
  if (q.length > MAX_QUESTION) return refuse(`question is ${q.length} characters; ask it in at most ${MAX_QUESTION}`);
  return undefined;
}

/** Why there is no answer: the model is told, so it does not read silence as a decision. */
const NOBODY = 'no operator is present to answer (no interactive terminal); treat this as no';
const CANCELLED = 'the operator cancelled the question without answering; treat this as no';

function done(value: unknown): Outcome {
  return { status: 'completed', output: JSON.stringify(value), isError: false };
}

function refuse(message: string): Outcome {
  return { status: 'completed', output: message, isError: true };
}

interface Spec {
  readonly name: HumanToolName;
  readonly description: string;
  readonly schema: Readonly<Record<string, unknown>>;
  readonly run: (args: Record<string, unknown>, prompter: Prompter | undefined, signal: AbortSignal) => Promise<Outcome>;
}

const present = (p: Prompter | undefined): p is Prompter => p !== undefined && p.canPrompt();

const SPECS: readonly Spec[] = [
  {
    name: 'ask_human_confirm',
    description:
      'Ask the operator a yes/no question and wait for the answer. Returns {"confirmed": true|false}; anything but an explicit yes is false.',
    schema: {
      type: 'object',
      properties: { question: { type: 'string', description: 'The question, phrased so that yes means go ahead.' } },
      required: ['question'],
      additionalProperties: false,
    },
    async run(args, prompter, signal) {
      const q = question(args['question']);
      const bad = badQuestion(q);
      if (bad !== undefined) return bad;
      if (!present(prompter)) return done({ confirmed: false, reason: NOBODY });
      const yes = (await prompter.confirm(q, signal)) === true;
      return done(yes ? { confirmed: true } : { confirmed: false, reason: signal.aborted ? CANCELLED : 'the operator did not answer yes' });
    },
  },
  {
    name: 'ask_human_select',
    description:
      'Ask the operator to pick one of a list of options. Returns {"selected": "<option>"}, or {"selected": null} when they chose none.',
    schema: {
      type: 'object',
      properties: {
        question: { type: 'string', description: 'What the operator is choosing.' },
        options: {
          type: 'array',
          items: { type: 'string', maxLength: MAX_OPTION },
          minItems: 1,
          maxItems: MAX_OPTIONS,
          description: `The choices, shown in this order (at most ${MAX_OPTIONS}).`,
        },
      },
      required: ['question', 'options'],
      additionalProperties: false,
    },
    async run(args, prompter, signal) {
      const q = question(args['question']);
      const raw = args['options'];
      const bad = badQuestion(q);
      if (bad !== undefined) return bad;
      if (!Array.isArray(raw) || raw.length === 0 || raw.some((o) => typeof o !== 'string'))
        return refuse('options must be a non-empty list of strings');
      if (raw.length > MAX_OPTIONS) return refuse(`options holds ${raw.length} choices; offer at most ${MAX_OPTIONS}`);
      const options = (raw as string[]).map((o) => stripControl(o).replace(/\s+/g, ' ').trim());
      if (options.some((o) => o === '' || o.length > MAX_OPTION))
        return refuse(`every option must be non-empty and at most ${MAX_OPTION} characters`);
      if (!present(prompter)) return done({ selected: null, reason: NOBODY });
      const picked = await prompter.select(q, options, signal);
      if (picked === null) return done({ selected: null, reason: CANCELLED });
      // only an offered option counts: a prompter answering anything else is treated as no choice
      const index = options.indexOf(picked);
      return index < 0
        ? done({ selected: null, reason: 'the answer was not one of the options' })
        : done({ selected: (raw as string[])[index] ?? null });
    },
  },
  {
    name: 'ask_human_input',
    description: 'Ask the operator to type a short answer. Returns {"value": "<text>"}, or {"value": null} when they gave none.',
    schema: {
      type: 'object',
      properties: { question: { type: 'string', description: 'What the operator should type.' } },
      required: ['question'],
      additionalProperties: false,
    },
    async run(args, prompter, signal) {
      const q = question(args['question']);
      const bad = badQuestion(q);
      if (bad !== undefined) return bad;
      if (!present(prompter)) return done({ value: null, reason: NOBODY });
      const value = await prompter.input(q, signal);
      return done(value === null ? { value: null, reason: CANCELLED } : { value });
    },
  },
];

/**
 * A question met with silence (the prompter threw {@link Unanswered}) defers the call: the run
 * suspends and the call is answered later (`fisk session answer`), never asked again.
 */
async function orDeferred(run: () => Promise<Outcome>): Promise<Outcome> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof Unanswered) return { status: 'deferred', reason: err.message };
    throw err;
  }
}

/** Builds the three human-in-the-loop tools. */
export function humanTools(): readonly Tool[] {
  return Object.freeze(
    SPECS.map((spec) =>
      newFuncTool({
        name: spec.name,
        description: spec.description,
        inputSchema: spec.schema,
        kind: 'builtin',
        presentation: 'self-rendered',
        // the person these tools reach is this run's operator, never a caller's
        exposure: { mcp: false, a2a: false },
        deferrable: false,
        needsPrompter: true,
        // paced by the operator: the tool timeout would cancel their own question
        operatorPaced: true,
        handler: (args, call) => orDeferred(() => spec.run(args, call.deps.prompter, call.signal)),
      }),
    ),
  );
}
