/** The system prompt segments sent with every model call. */
import type { SystemBlock } from '../llm/types.js';
import { HUMAN_NOTE } from './human-tools.js';

/**
 * The operator's prompt first, then the notes of the built-ins this run carries, then any notes
 * the host supplies (memory, knowledge). Empty segments are dropped: a provider rejects an empty
 * system block.
 */
export function systemBlocks(systemPrompt: string, humanInTheLoop: boolean, notes: readonly string[]): SystemBlock[] {
  const segments = [systemPrompt, humanInTheLoop ? HUMAN_NOTE : '', ...notes];
  return segments.filter((s) => s.trim() !== '').map((text) => ({ text }));
}
