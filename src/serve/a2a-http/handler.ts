/**
 * The request handler the transports call: the SDK's own, with the rules of a served agent in
 * front of the calls that start or continue a task. A message without a task id gets the task its
 * message id derives, so a retry finds the first attempt's task instead of starting a second run;
 * a message on a task answers its open question, and anything else on a working task is refused;
 * a draining agent takes no new task.
 */
import { randomUUID } from 'node:crypto';
import { RequestMalformedError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import type { A2ARequestHandler, ServerCallContext, TaskStore } from '@a2a-js/sdk/server';
import type { Message, SendMessageRequest, StreamResponse, Task } from '@a2a-js/sdk';
import { HOPS_HEADER, hopsRefusal, parseHops } from '../../a2a/index.js';
import type { TaskChannel } from './tasks.js';
import { TaskState } from './wire.js';

const TERMINAL = new Set<TaskState>([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);

/** Where a delegating fisk agent puts the chain of agents a task came through, besides the header. */
export const HOPS_METADATA_KEY = 'fisk-ai/hops';

function listed(metadata: Record<string, unknown> | undefined): string | undefined {
  const v = metadata?.[HOPS_METADATA_KEY];
  return Array.isArray(v) ? v.filter((h): h is string => typeof h === 'string').join(',') : undefined;
}

/** The chain of agents a task came through: the request's or message's metadata, else the header. */
export function hopsOf(params: SendMessageRequest, m: Message, ctx: ServerCallContext): string[] {
  const headers = ctx.state.get('headers') as Record<string, string | string[] | undefined> | undefined;
  const raw = headers?.[HOPS_HEADER.toLowerCase()];
  const header = Array.isArray(raw) ? raw.join(',') : raw;
  return parseHops(listed(params.metadata) ?? listed(m.metadata) ?? header);
}

type Routed = { readonly kind: 'run'; readonly params: SendMessageRequest } | { readonly kind: 'existing'; readonly id: string };

/** Wraps `inner` so every call that starts or continues a task goes through the channel's rules. */
export function guardedHandler(inner: A2ARequestHandler, channel: TaskChannel, store: TaskStore, identity: string): A2ARequestHandler {
  const route = async (params: SendMessageRequest, ctx: ServerCallContext): Promise<Routed> => {
    const message: Message | undefined = params.message;
    if (message === undefined) return { kind: 'run', params };
    if (message.messageId.trim() === '')
      throw new RequestMalformedError(
        'message.messageId is required: it is how a retried message finds its task; give every message its own id',
      );
    if (message.taskId === '') {
      if (!channel.open)
        throw new UnsupportedOperationError(`agent ${identity} is shutting down and takes no new tasks; send it again once it is back`);
      const hops = hopsOf(params, message, ctx);
      const circle = hopsRefusal(identity, hops);
      if (circle !== undefined) throw new UnsupportedOperationError(`agent ${identity} refuses this task: ${circle}`);
      const contextId = message.contextId === '' ? randomUUID() : message.contextId;
      const { id, fresh, busy } = channel.claim(message.messageId, contextId, hops);
      if (busy !== undefined) {
        throw new UnsupportedOperationError(
          `the conversation ${contextId} has a task still open (${busy}); wait for it to end, answer it or cancel it before sending the next one`,
        );
      }
      if (!fresh) return { kind: 'existing', id };
      const task: Task = {
        id,
        contextId,
        status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
        artifacts: [],
        history: [],
        metadata: undefined,
      };
      try {
        await store.save(task, ctx);
      } catch (err) {
        channel.unclaim(id);
        throw err;
      }
      return { kind: 'run', params: { ...params, message: { ...message, taskId: id, contextId } } };
    }
    switch (channel.follows(message.taskId, message.messageId)) {
      case 'repeat':
        return { kind: 'existing', id: message.taskId };
      case 'busy':
        throw new UnsupportedOperationError(
          `task ${message.taskId} is working and has asked nothing; follow it (GetTask or SubscribeToTask) or cancel it, and send a new message for a new task`,
        );
      default:
        return { kind: 'run', params };
    }
  };
  const snapshot = (id: string, tenant: string, ctx: ServerCallContext): Promise<Task> => inner.getTask({ tenant, id }, ctx);

  return {
    getAgentCard: () => inner.getAgentCard(),
    getAuthenticatedExtendedAgentCard: (p, ctx) => inner.getAuthenticatedExtendedAgentCard(p, ctx),
    async sendMessage(params, ctx) {
      const r = await route(params, ctx);
      if (r.kind === 'run') return inner.sendMessage(r.params, ctx);
      // a retry: the first attempt's task, once it has something to say
      if (params.configuration?.returnImmediately !== true) await channel.paused(r.id);
      return snapshot(r.id, params.tenant, ctx);
    },
    async *sendMessageStream(params, ctx): AsyncGenerator<StreamResponse, void, undefined> {
      const r = await route(params, ctx);
      if (r.kind === 'run') {
        yield* inner.sendMessageStream(r.params, ctx);
        return;
      }
      const task = await snapshot(r.id, params.tenant, ctx);
      const state = task.status?.state;
      if (state !== undefined && TERMINAL.has(state)) {
        yield { payload: { $case: 'task', value: task } };
        return;
      }
      yield* inner.resubscribe({ tenant: params.tenant, id: r.id }, ctx);
    },
    getTask: (p, ctx) => inner.getTask(p, ctx),
    cancelTask: (p, ctx) => inner.cancelTask(p, ctx),
    createTaskPushNotificationConfig: (p, ctx) => inner.createTaskPushNotificationConfig(p, ctx),
    getTaskPushNotificationConfig: (p, ctx) => inner.getTaskPushNotificationConfig(p, ctx),
    listTaskPushNotificationConfigs: (p, ctx) => inner.listTaskPushNotificationConfigs(p, ctx),
    deleteTaskPushNotificationConfig: (p, ctx) => inner.deleteTaskPushNotificationConfig(p, ctx),
    resubscribe: (p, ctx) => inner.resubscribe(p, ctx),
    listTasks: (p, ctx) => inner.listTasks(p, ctx),
  };
}
