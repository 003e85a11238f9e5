/** What a rejected append means, decided from the message that already holds the target subject. */
export type Rejection = 'adopt' | 'exists' | 'locked';

/**
 * Explains a rejected append. The subject already holds a message (or the fence would not have
 * fired): our own message id there means our earlier attempt landed and only its ack was lost, so
 * the record is stored and the journal adopts it; otherwise, for sequence 1 another process created
 * the run first, and for any later sequence another writer holds the run. A subject that reads back
 * empty is treated as held by another writer: the fence saw something there, and guessing it away
 * would let two writers through.
 */
export function explainRejection(heldMsgId: string | undefined, ourMsgId: string, seq: number): Rejection {
  if (heldMsgId !== undefined && heldMsgId === ourMsgId) return 'adopt';
  return seq === 1 ? 'exists' : 'locked';
}
