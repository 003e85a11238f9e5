/**
 * A NATS connection built from a context. The connection is owned by whoever called
 * `connectNats` (a host or a CLI command); the stores and transports it is handed borrow it and
 * never close it.
 */
import { readFileSync } from 'node:fs';
import { connect, credsAuthenticator, nkeyAuthenticator } from '@nats-io/transport-node';
import type { NatsConnection, NodeConnectionOptions } from '@nats-io/transport-node';
import { ConnError } from './errors.js';
import { loadNatsContext } from './nats-context.js';
import type { NatsContext } from './nats-context.js';

/** A connection with the JetStream settings its context asked for. */
export interface NatsConn {
  readonly connection: NatsConnection;
  readonly context: NatsContext;
  /** Options for `jetstream()`/`jetstreamManager()` (domain or API prefix). */
  readonly jetstream: { readonly domain?: string; readonly apiPrefix?: string };
}

function readSecretFile(ctx: NatsContext, field: string, path: string): Uint8Array {
  try {
    return new Uint8Array(readFileSync(path));
  } catch (err) {
    throw new ConnError(
      'context_invalid',
      `NATS context ${JSON.stringify(ctx.name)}: cannot read its ${field} file ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      { cause: err },
    );
  }
}

/** The client options a context stands for. Reads credential files; never logs them. */
export function connectionOptions(ctx: NatsContext, opts: { readonly name?: string } = {}): NodeConnectionOptions {
  const out: NodeConnectionOptions = {};
  if (ctx.servers.length > 0) out.servers = [...ctx.servers];
  if (opts.name !== undefined) out.name = opts.name;
  if (ctx.creds !== undefined) {
    out.authenticator = credsAuthenticator(readSecretFile(ctx, 'creds', ctx.creds));
  } else if (ctx.nkey !== undefined) {
    const seed = new TextEncoder().encode(new TextDecoder().decode(readSecretFile(ctx, 'nkey', ctx.nkey)).trim());
    out.authenticator = nkeyAuthenticator(seed);
  }
  if (ctx.token !== undefined) out.token = ctx.token;
  if (ctx.user !== undefined) out.user = ctx.user;
  if (ctx.password !== undefined) out.pass = ctx.password;
  if (ctx.cert !== undefined || ctx.key !== undefined || ctx.ca !== undefined || ctx.tlsFirst) {
    out.tls = {
      ...(ctx.cert !== undefined ? { certFile: ctx.cert } : {}),
      ...(ctx.key !== undefined ? { keyFile: ctx.key } : {}),
      ...(ctx.ca !== undefined ? { caFile: ctx.ca } : {}),
      ...(ctx.tlsFirst ? { handshakeFirst: true } : {}),
    };
  }
  if (ctx.inboxPrefix !== undefined) out.inboxPrefix = ctx.inboxPrefix;
  return out;
}

/** Strips userinfo from a server URL so an error or a log line never carries a password. */
export function redactServer(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}

/** How {@link connectNats} connects. */
export interface ConnectNatsOptions {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly name?: string;
  readonly timeoutMs?: number;
  /**
   * Once connected, never give up reconnecting after the connection drops (the client's default
   * gives up after about 20 s and closes it for good). For an owner that lives as long as its
   * process and closes the connection itself: a served agent rides out a NATS outage of any length.
   */
  readonly keepReconnecting?: boolean;
}

/**
 * Loads the named context (or uses the given one) and connects. Throws `ConnError`
 * (`context_not_found`, `context_invalid`, `unreachable`) naming the context.
 */
export async function connectNats(context: string | NatsContext, opts: ConnectNatsOptions): Promise<NatsConn> {
  const ctx = typeof context === 'string' ? loadNatsContext(context, opts.env) : context;
  const options = connectionOptions(ctx, opts.name !== undefined ? { name: opts.name } : {});
  options.timeout = opts.timeoutMs ?? 5000;
  if (opts.keepReconnecting === true) options.maxReconnectAttempts = -1;
  let connection: NatsConnection;
  try {
    connection = await connect(options);
  } catch (err) {
    const where = ctx.servers.length > 0 ? ctx.servers.map(redactServer).join(', ') : 'the default server';
    throw new ConnError('unreachable', `cannot connect to NATS context ${JSON.stringify(ctx.name)} (${where}): ${(err as Error).message}`, {
      cause: err,
    });
  }
  return {
    connection,
    context: ctx,
    jetstream: {
      ...(ctx.jetstreamDomain !== undefined ? { domain: ctx.jetstreamDomain } : {}),
      ...(ctx.jetstreamApiPrefix !== undefined ? { apiPrefix: ctx.jetstreamApiPrefix } : {}),
    },
  };
}
