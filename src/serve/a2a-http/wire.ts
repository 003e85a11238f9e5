/**
 * The A2A objects the HTTP channel sends, built in one place: an agent message of text and data
 * parts, a status update, an artifact, and the text a caller's message carries.
 */
import { randomUUID } from 'node:crypto';
import { Role, TaskState } from '@a2a-js/sdk';
import type { Artifact, Message, Part, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from '@a2a-js/sdk';

export function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

export function dataPart(value: Record<string, unknown>): Part {
  return { content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: 'application/json' };
}

/** A message from the agent on a task. */
export function agentMessage(taskId: string, contextId: string, parts: readonly Part[]): Message {
  return {
    messageId: randomUUID(),
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts: [...parts],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

export function statusUpdate(taskId: string, contextId: string, state: TaskState, parts?: readonly Part[]): TaskStatusUpdateEvent {
  return {
    taskId,
    contextId,
    status: {
      state,
      message: parts === undefined ? undefined : agentMessage(taskId, contextId, parts),
      timestamp: new Date().toISOString(),
    },
    metadata: undefined,
  };
}

export function artifactUpdate(
  taskId: string,
  contextId: string,
  artifact: Omit<Artifact, 'metadata' | 'extensions'>,
): TaskArtifactUpdateEvent {
  return {
    taskId,
    contextId,
    artifact: { ...artifact, metadata: undefined, extensions: [] },
    append: false,
    lastChunk: true,
    metadata: undefined,
  };
}

/** The text of a caller's message: its text parts, in order, joined by blank lines. */
export function messageText(message: Message): string {
  const texts: string[] = [];
  for (const p of message.parts) if (p.content?.$case === 'text') texts.push(p.content.value);
  return texts.join('\n\n').trim();
}

/** An `answer` the caller gave in a data part (`{"answer": ...}`), when it gave one. */
export function dataAnswer(message: Message): unknown {
  for (const p of message.parts) {
    if (p.content?.$case !== 'data') continue;
    const v: unknown = p.content.value;
    if (typeof v === 'object' && v !== null && 'answer' in v) return (v as Record<string, unknown>)['answer'];
  }
  return undefined;
}

export { TaskState };
