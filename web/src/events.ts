/**
 * The events the server sends, as the server defines them (src/web/wire.ts). Only types cross: every
 * import here is `import type`, so no server code reaches the page's bundle, and a change on the
 * server is a compile error here.
 */
import type { ApprovalEvent, ApprovalOutcome as ServerApprovalOutcome, QuestionEvent } from '../../src/agent/events.js';
import type { QuestionAnswer } from '../../src/host/question-answer.js';
import type { StampedEvent, TabEvent } from '../../src/web/wire.js';

export type Json = Record<string, unknown>;

/** What the page may send back for a question. */
export type Answer = QuestionAnswer;

export type Question = QuestionEvent;

export type ApprovalOutcome = ServerApprovalOutcome;

/** How the gate decided a call, whether it arrived live or was rebuilt from a replayed decision. */
export type Approval = ApprovalEvent;

/** Every event but `control` and `reset` carries `at`: the server's clock when it happened. */
export type Incoming = StampedEvent | TabEvent;
