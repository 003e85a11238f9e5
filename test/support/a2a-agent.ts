/**
 * An A2A agent built from `@a2a-js/sdk`'s own server classes, served on node:http over loopback
 * (JSON-RPC, with its card at the well-known path): what a delegation over A2A HTTP meets in
 * the wild. Given a task it reports that it is working, may ask one question back
 * (`input-required`), and completes with an artifact naming what it was told, plus its token usage.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AgentCard, formatSSEEvent, Role, SSE_HEADERS, TaskState } from '@a2a-js/sdk';
import type { Message, Part } from '@a2a-js/sdk';
import { DefaultRequestHandler, InMemoryTaskStore, JsonRpcTransportHandler, ServerCallContext } from '@a2a-js/sdk/server';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';

export interface TestA2aAgent {
  readonly url: string;
  /** The headers of every HTTP request it received, card requests included. */
  readonly requests: IncomingHttpHeaders[];
  /** The metadata of every message it was sent. */
  readonly metadata: Record<string, unknown>[];
  /** The text of every message it was sent, in order. */
  readonly texts: string[];
  close(): Promise<void>;
}

export interface TestA2aAgentOptions {
  readonly name?: string;
  /** Ask this question back before completing. */
  readonly question?: string;
  readonly usage?: { readonly input_tokens: number; readonly output_tokens: number };
  /** Repeat this request header in the answer, as a careless or hostile peer might. */
  readonly echoHeader?: string;
}

function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

function agentMessage(text: string, taskId: string, contextId: string): Message {
  return {
    messageId: randomUUID(),
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

function textOf(message: Message): string {
  return message.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
}

class Executor implements AgentExecutor {
  constructor(
    readonly opts: TestA2aAgentOptions,
    readonly seen: TestA2aAgent,
  ) {}

  execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const message = ctx.userMessage;
    const text = textOf(message);
    this.seen.texts.push(text);
    this.seen.metadata.push({ ...(message.metadata ?? {}) });
    const { taskId, contextId } = ctx;
    const status = (state: TaskState, said: string, metadata?: Record<string, unknown>): void =>
      bus.publish({
        kind: 'statusUpdate',
        data: {
          taskId,
          contextId,
          status: { state, message: agentMessage(said, taskId, contextId), timestamp: new Date().toISOString() },
          metadata,
        },
      });
    if (ctx.task === undefined) {
      bus.publish({
        kind: 'task',
        data: {
          id: taskId,
          contextId,
          status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: undefined },
          artifacts: [],
          history: [message],
          metadata: undefined,
        },
      });
      status(TaskState.TASK_STATE_WORKING, `reading the task: ${text.slice(0, 40)}`);
      if (this.opts.question !== undefined) {
        status(TaskState.TASK_STATE_INPUT_REQUIRED, this.opts.question);
        bus.finished();
        return Promise.resolve();
      }
    }
    // a continued task is announced again before anything else on this stream
    else bus.publish({ kind: 'task', data: ctx.task });
    const said = ctx.task === undefined ? `done: ${text}` : `done with the answer: ${text}`;
    const echoed = this.opts.echoHeader === undefined ? undefined : this.seen.requests.at(-1)?.[this.opts.echoHeader.toLowerCase()];
    const answer = echoed === undefined ? said : `${said} (you sent ${String(echoed)})`;
    bus.publish({
      kind: 'artifactUpdate',
      data: {
        taskId,
        contextId,
        artifact: {
          artifactId: randomUUID(),
          name: 'answer',
          description: '',
          parts: [
            textPart(answer),
            { content: { $case: 'url', value: 'https://docs.example/runbook' }, metadata: undefined, filename: 'runbook', mediaType: '' },
          ],
          metadata: undefined,
          extensions: [],
        },
        append: false,
        lastChunk: true,
        metadata: undefined,
      },
    });
    status(TaskState.TASK_STATE_COMPLETED, 'finished', this.opts.usage === undefined ? undefined : { usage: this.opts.usage });
    bus.finished();
    return Promise.resolve();
  }

  cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    bus.publish({
      kind: 'statusUpdate',
      data: {
        taskId,
        contextId: '',
        status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: undefined },
        metadata: undefined,
      },
    });
    bus.finished();
    return Promise.resolve();
  }
}

/** Starts the agent on a free loopback port. */
export async function startTestA2aAgent(opts: TestA2aAgentOptions = {}): Promise<TestA2aAgent> {
  const seen = { requests: [] as IncomingHttpHeaders[], metadata: [] as Record<string, unknown>[], texts: [] as string[] };
  let url = '';
  const card = (): AgentCard =>
    AgentCard.fromJSON({
      name: opts.name ?? 'planner',
      description: 'Plans maintenance windows for the fleet.',
      version: '1.0.0',
      supportedInterfaces: [{ url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      capabilities: { streaming: true },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [{ id: 'plan', name: 'Plan a window', description: 'Finds a maintenance window that suits every team.', tags: ['planning'] }],
    });
  const agent: TestA2aAgent = { url: '', ...seen, close: () => Promise.resolve() };
  let handler: JsonRpcTransportHandler | undefined;
  const server: Server = createServer((req, res) => {
    seen.requests.push(req.headers);
    if (req.method === 'GET' && req.url === '/.well-known/agent-card.json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(AgentCard.toJSON(card())));
      return;
    }
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      void (async () => {
        try {
          handler ??= new JsonRpcTransportHandler(new DefaultRequestHandler(card(), new InMemoryTaskStore(), new Executor(opts, agent)));
          const answer = await handler.handle(body, new ServerCallContext());
          if (typeof (answer as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function') {
            res.writeHead(200, SSE_HEADERS);
            for await (const event of answer as AsyncGenerator<unknown>) res.write(formatSSEEvent(event));
            res.end();
            return;
          }
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify(answer));
        } catch (err) {
          // the test reads what the client made of it; the agent's own failure shows here
          if (!res.headersSent) res.writeHead(500);
          res.end(String(err));
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return Object.assign(agent, { url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) });
}
