/** The events the server sends (see src/web/conversation.ts and src/web/page-events.ts). */

export type Json = Record<string, unknown>;

export interface Usage {
  input_tokens: number;
  output_tokens: number;
}

/** A decline that tells the agent what to do instead. */
export interface ReasonedDecline {
  decision: 'decline';
  reason: string;
}

export type Answer = string | boolean | null | ReasonedDecline;

export type Question = { type: 'question'; id?: string; kind: 'approval' | 'confirm' | 'select' | 'input'; text: string; options?: string[]; tool?: string; trigger?: string };

export type ApprovalOutcome = 'approved_once' | 'approved_for_run' | 'approved_by_grant' | 'approved_earlier' | 'declined' | 'declined_earlier' | 'no_operator' | 'cancelled';

/** Every event but `control` and `reset` carries `at`: the server's clock when it happened. */
export type Incoming = Events & { at?: number };

type Events =
  | { type: 'control'; tab: string; control: boolean; busy: boolean; agent: string; now: number; key?: string }
  | { type: 'reset' }
  | { type: 'prompt'; text: string }
  | { type: 'run'; runId?: string; resumed: boolean }
  | { type: 'text'; text: string; final: boolean }
  | { type: 'text_fragment'; text: string }
  | { type: 'thinking'; text: string }
  | { type: 'tool_call'; id: string; name: string; input: Json; via?: string }
  | { type: 'tool_result'; call_id: string; is_error: boolean; output: string; refused?: string; exec?: { command: string; exit_code: number; truncated: boolean } }
  | { type: 'warning'; text: string }
  | { type: 'progress'; call_id: string; tool: string; text: string }
  | { type: 'status'; iteration: number; phase: 'model_call' | 'tools' | 'finished'; usage: Usage }
  | Question
  | { type: 'approval'; call_id: string; tool: string; trigger: string; outcome: ApprovalOutcome; reason?: string }
  | { type: 'answered'; id: string; answer: Answer; by: 'page' | 'no_page' }
  /** A replayed call the gate decided: its question and the decision in one. */
  | { type: 'decision'; call_id: string; tool: string; text: string; trigger: string; outcome: ApprovalOutcome; reason?: string }
  | { type: 'outcome'; status: string; answer: string; message: string; runId?: string }
  | { type: 'reopened'; runId: string; status: string; resumable: boolean }
  | { type: 'crash'; message: string }
  | { type: 'error'; message: string };
