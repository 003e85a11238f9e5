import type { ApprovalDecision, Prompter } from '../tool.js';

/**
 * The prompter every served call receives (over MCP or a2a): nobody stands behind a served call to
 * answer a question, so each question resolves to its conservative answer and a tool that asks is
 * denied.
 */
export const DENY_PROMPTER: Prompter = Object.freeze({
  canPrompt: (): boolean => false,
  approve: (): Promise<ApprovalDecision> => Promise.resolve('decline'),
  confirm: (): Promise<boolean> => Promise.resolve(false),
  select: (): Promise<string | null> => Promise.resolve(null),
  input: (): Promise<string | null> => Promise.resolve(null),
});
