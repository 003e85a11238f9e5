/**
 * Header population. Stamping is not signing: sender and recipient are assertions for logs and
 * reply addressing, and a reply only ever goes to the inbox the transport supplied.
 */
import { isoTime, mintId } from './protocol.js';
import type { ProtocolId } from './protocol.js';
import type { BodyOf, Header, Identity, MessageMap } from './types.js';

/** The header first, in one fixed shape, then the body's own fields. */
function build<P extends ProtocolId>(protocol: P, body: BodyOf<P>, header: Omit<Header<P>, 'protocol'>): MessageMap[P] {
  const message: Record<string, unknown> = Object.assign(header, body);
  message['protocol'] = protocol;
  return message as unknown as MessageMap[P];
}

/**
 * A request: one minted id is its message, request and conversation id; sequence zero. A
 * follow-up passes `conversation` to name the conversation it continues.
 */
export function stampRequest<P extends ProtocolId>(
  protocol: P,
  body: BodyOf<P>,
  opts: { readonly sender: Identity; readonly recipient?: Identity; readonly conversation?: string; readonly now?: Date },
): MessageMap[P] {
  const now = opts.now ?? new Date();
  const id = mintId(now);
  return build(protocol, body, {
    id,
    request: id,
    conversation: opts.conversation ?? id,
    sequence: 0,
    time: isoTime(now),
    sender: opts.sender,
    ...(opts.recipient !== undefined ? { recipient: opts.recipient } : {}),
  });
}

/**
 * A reply: a fresh id, the request and conversation ids echoed, sender and recipient swapped.
 * `self` is the sender when the request named no recipient. Sequence is zero on a direct call and
 * the position in the reply set on a delegation.
 */
export function stampReply<P extends ProtocolId>(
  protocol: P,
  body: BodyOf<P>,
  request: Header,
  opts: { readonly self: Identity; readonly sequence?: number; readonly now?: Date },
): MessageMap[P] {
  const now = opts.now ?? new Date();
  return build(protocol, body, {
    id: mintId(now),
    request: request.request,
    conversation: request.conversation,
    sequence: opts.sequence ?? 0,
    time: isoTime(now),
    sender: request.recipient ?? opts.self,
    recipient: request.sender,
  });
}
