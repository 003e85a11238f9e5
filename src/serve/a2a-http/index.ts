/**
 * The A2A HTTP channel of `fisk serve` (`expose.agent.a2a_http`): the A2A standard over HTTP,
 * built on `@a2a-js/sdk`'s request handler, next to the NATS channels and sharing the server's
 * slots, drain and journaled runs.
 */
import { DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import type { AgentCard } from '@a2a-js/sdk';
import { selectExposed } from '../../a2a/index.js';
import { assembleTools } from '../../host/index.js';
import type { Runtime } from '../../host/index.js';
import type { Channel, Work } from '../channel.js';
import { ServeError } from '../errors.js';
import { readBearerToken } from '../../util/bearer-token.js';
import { buildHttpCard } from './card.js';
import { guardedHandler } from './handler.js';
import { A2aListener, CARD_PATH } from './listener.js';
import { TaskChannel } from './tasks.js';

export { buildHttpCard } from './card.js';
export { taskIdFor, sessionIdFor } from './tasks.js';
export { CARD_PATH } from './listener.js';

export interface A2aHttpOptions {
  /** The version the card advertises. */
  readonly version: string;
  /** Where the bearer token is read from (`auth_token_env` names the variable). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** `--workers`: replaces `expose.agent.a2a_http.workers`. */
  readonly workers?: number;
}

export interface A2aHttpChannel extends Channel {
  /** Where the listener is bound. */
  readonly listening: string;
  /** The URL the card advertises for JSON-RPC. */
  readonly url: string;
  readonly cardUrl: string;
  readonly card: AgentCard;
  /** The variable the bearer token came from; undefined when none is required. */
  readonly tokenEnv: string | undefined;
  /** Stops listening; after a drain, once every task's last state went out. Idempotent. */
  shutdown(): Promise<void>;
}

function hostForUrl(address: string): string {
  return address.includes(':') ? `[${address}]` : address;
}

/** The token from the environment; refused by key when the variable is unset, empty or too short. */
function bearerToken(name: string | undefined, env: A2aHttpOptions['env']): string | undefined {
  if (name === undefined) return undefined;
  const read = readBearerToken(env, name, 'expose.agent.a2a_http.auth_token_env');
  if ('problem' in read) throw new ServeError('a2a_http', read.problem);
  return read.token;
}

/**
 * Opens the channel: reads the token, describes the served tools on the card and listens. Throws
 * ServeError `a2a_http` naming the key for a token missing from the environment or an address
 * that cannot be bound. Hand the channel to `startServer`; call `shutdown` after the drain.
 */
export async function openA2aHttpChannel(runtime: Runtime, opts: A2aHttpOptions): Promise<A2aHttpChannel> {
  const config = runtime.config;
  const settings = config.expose.a2aHttp;
  if (settings === undefined) throw new ServeError('no_endpoint', `${config.source} has no expose.agent.a2a_http block to serve`);
  const token = bearerToken(settings.authTokenEnv, opts.env);
  // what the card lists is what could be lent: the served selection, gated tools left out
  const assembled = await assembleTools(runtime, 'a2a-tools');
  const tools = selectExposed(assembled.served).exposed;
  const url = settings.publicUrl ?? `http://${hostForUrl(settings.address)}:${settings.port}/`;
  const help = runtime.application?.model.help.trim() ?? '';
  const card = buildHttpCard({
    identity: config.identity,
    version: opts.version,
    description: help === '' ? `Fisk AI agent ${config.identity}` : help,
    url,
    bearer: token !== undefined,
    tools,
  });
  const store = new InMemoryTaskStore();
  const tasks = new TaskChannel({
    identity: config.identity,
    workers: opts.workers ?? settings.workers,
    questionTimeoutMs: settings.questionTimeout.ms,
    store,
  });
  const inner = new DefaultRequestHandler(card, store, tasks);
  const listener = await A2aListener.start({
    address: settings.address,
    port: settings.port,
    token,
    handler: guardedHandler(inner, tasks, store, config.identity),
  });
  let closed: Promise<void> | undefined;
  const shutdown = (): Promise<void> => (closed ??= listener.close());
  return {
    name: tasks.name,
    workers: tasks.workers,
    listening: listener.url,
    url,
    cardUrl: new URL(CARD_PATH.slice(1), url).href,
    card,
    tokenEnv: settings.authTokenEnv,
    next: (signal: AbortSignal): Promise<Work | undefined> => tasks.next(signal),
    close: () => tasks.close(),
    // the last states went out and were stored: the listener closes once their requests ended
    settled: async () => {
      await tasks.settled();
      await shutdown();
    },
    shutdown,
  };
}
