import type { ContentBlock, Message } from './types.js';

/**
 * Removes reasoning from the history sent when thinking is explicitly off. Only for `off`: with
 * thinking unset the model may still think beside a tool call and expects its signed reasoning
 * back on the next turn. An assistant turn that would be left empty is kept whole, because the
 * APIs reject an empty turn. `isReasoningBlock` names the provider blocks that also count as
 * reasoning (redacted thinking, encrypted reasoning items).
 */
export function stripThinking(messages: readonly Message[], isReasoningBlock: (kind: string) => boolean): readonly Message[] {
  let changed = false;
  const out = messages.map((m) => {
    if (m.role !== 'assistant') return m;
    const kept = m.content.filter((b) => !isReasoning(b, isReasoningBlock));
    if (kept.length === m.content.length || kept.length === 0) return m;
    changed = true;
    return { role: m.role, content: kept };
  });
  return changed ? out : messages;
}

function isReasoning(b: ContentBlock, isReasoningBlock: (kind: string) => boolean): boolean {
  return b.type === 'thinking' || (b.type === 'provider' && isReasoningBlock(b.kind));
}
