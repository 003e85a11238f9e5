/** A person's answer to a run's question. Types only, so the browser page may share it. */
import type { ReasonedDecline } from '../toolkit/tool.js';

/**
 * What a person can send back for a question: `once`, `always`, `decline` or a decline with a
 * reason (`{ decision: 'decline', reason }`) for an approval; a boolean, a choice or a text.
 */
export type QuestionAnswer = boolean | string | null | ReasonedDecline;
