/**
 * A local stand-in for Slack: the Web API methods a socket-mode bot calls (over HTTP, as the
 * official client sends them) and the socket-mode WebSocket endpoint that delivers events and
 * interactive payloads. A test points the bot at `apiUrl`, then plays the people: mentions, thread
 * replies, button clicks, menu choices, typed answers and modals submitted. Nothing leaves the
 * loopback interface.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import type { WebSocket } from 'ws';

/** One Web API call the stand-in received, with its parameters decoded. */
export interface FakeSlackCall {
  readonly method: string;
  readonly params: Readonly<Record<string, unknown>>;
}

/** A message as it stands in the stand-in's history (edits applied). */
export interface FakeSlackMessage {
  readonly channel: string;
  readonly ts: string;
  /** Set for a reply in a thread; the thread's first message has none. */
  readonly threadTs: string | undefined;
  /** Who posted it: the bot's user id for the bot. */
  readonly user: string;
  text: string;
  blocks: readonly Record<string, unknown>[];
  /** How many times `chat.update` changed it. */
  edits: number;
}

export interface FakeSlackOptions {
  /** The tokens the stand-in accepts (default `xapp-fake` and `xoxb-fake`). */
  readonly appToken?: string;
  readonly botToken?: string;
  readonly team?: string;
  /** The bot's user id, as `auth.test` reports it (default `UFISKBOT`). */
  readonly botUserId?: string;
}

/** A message posted with `chat.postEphemeral`: seen only by `user`, never part of the history. */
export interface FakeSlackEphemeral {
  readonly channel: string;
  readonly user: string;
  readonly threadTs: string | undefined;
  readonly text: string;
}

/** What a person does in a channel. */
export interface FakeSlackPost {
  readonly channel: string;
  readonly text: string;
  /** Default `UPERSON`. */
  readonly user?: string;
  /** Replies in this thread; absent starts one. */
  readonly threadTs?: string;
}

/** A click on a button, a menu choice or a typed answer, on a message the bot posted. */
export interface FakeSlackAction {
  readonly message: FakeSlackMessage;
  readonly actionId: string;
  /** A button's value. */
  readonly value?: string;
  /** A menu option's value. */
  readonly selectedValue?: string;
  /** The text typed into an input. */
  readonly typed?: string;
  readonly user?: string;
}

/** A modal the bot opened with `views.open`, for the person whose action carried the trigger. */
export interface FakeSlackView {
  readonly id: string;
  /** Who sees it: the user of the interaction whose `trigger_id` opened it. */
  readonly user: string;
  readonly view: Readonly<Record<string, unknown>>;
}

/** A person submitting a modal: what they typed, by input block id (the block's one element is filled). */
export interface FakeSlackSubmission {
  readonly view: FakeSlackView;
  readonly values?: Readonly<Record<string, string>>;
  /** Default: the person the modal was opened for. */
  readonly user?: string;
}

export interface FakeSlack {
  /** The Web API base (`http://127.0.0.1:<port>/api/`), for the client's `slackApiUrl`. */
  readonly apiUrl: string;
  readonly appToken: string;
  readonly botToken: string;
  readonly team: string;
  readonly botUserId: string;
  /** Every Web API call, in order. */
  readonly calls: readonly FakeSlackCall[];
  /** Every message, people's and the bot's, in the order posted. */
  readonly messages: readonly FakeSlackMessage[];
  /** Every ephemeral message the bot posted, in order. */
  readonly ephemerals: readonly FakeSlackEphemeral[];
  /** Every modal the bot opened, in order. */
  readonly views: readonly FakeSlackView[];
  /** The messages of one thread, its first message included. */
  thread(channel: string, threadTs: string): FakeSlackMessage[];
  /** Socket connections open now. */
  readonly connections: number;
  /** Resolves once at least `n` socket connections have been opened since the start (default 1). */
  connected(n?: number): Promise<void>;
  /** A person mentions the bot: the message is stored and an `app_mention` event is sent. Returns its ts. */
  mention(post: FakeSlackPost): Promise<string>;
  /** A person posts without mentioning the bot: only a `message` event is sent. Returns its ts. */
  say(post: FakeSlackPost): Promise<string>;
  /** A person acts on one of the bot's interactive messages (a `block_actions` payload). */
  act(action: FakeSlackAction): Promise<void>;
  /**
   * A person submits a modal (a `view_submission` payload); resolves with what the bot acknowledged
   * it with: `{}` closes the modal, `{response_action: 'errors', errors}` keeps it open showing them.
   */
  submit(submission: FakeSlackSubmission): Promise<Record<string, unknown>>;
  /** Resolves with the first non-undefined value of `probe`, checked after every Web API call. */
  until<T>(probe: () => T | undefined, what: string, timeoutMs?: number): Promise<T>;
  close(): Promise<void>;
}

/** A parameter as a string; anything else (absent, an object) as empty. */
function str(v: unknown): string {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '';
}

/** Decodes a Web API body: JSON, or a form whose values may be JSON (blocks). */
function decode(req: IncomingMessage, text: string): Record<string, unknown> {
  const type = req.headers['content-type'] ?? '';
  if (type.includes('application/json')) return text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
  const out: Record<string, unknown> = {};
  for (const [k, v] of new URLSearchParams(text)) {
    if ((k === 'blocks' || k === 'attachments' || k === 'metadata') && v.startsWith('[')) out[k] = JSON.parse(v) as unknown;
    else if (k === 'view' && v.startsWith('{')) out[k] = JSON.parse(v) as unknown;
    else out[k] = v;
  }
  return out;
}

/** Starts the stand-in on a free loopback port. */
export async function startFakeSlack(options: FakeSlackOptions = {}): Promise<FakeSlack> {
  const appToken = options.appToken ?? 'xapp-fake';
  const botToken = options.botToken ?? 'xoxb-fake';
  const team = options.team ?? 'TFAKE';
  const botUserId = options.botUserId ?? 'UFISKBOT';
  const calls: FakeSlackCall[] = [];
  const messages: FakeSlackMessage[] = [];
  const ephemerals: FakeSlackEphemeral[] = [];
  const views: FakeSlackView[] = [];
  /** The trigger ids handed out with interactions, each usable once, with the user who acted. */
  const triggers = new Map<string, string>();
  const acks = new Map<string, (payload: Record<string, unknown>) => void>();
  const sockets = new Set<WebSocket>();
  const waiters = new Set<() => void>();
  let opened = 0;
  let clock = 1_700_000_000;
  let seq = 0;
  const nextTs = (): string => `${clock++}.${String(++seq).padStart(6, '0')}`;
  const changed = (): void => {
    for (const wake of [...waiters]) wake();
  };

  const reply = (res: ServerResponse, body: Record<string, unknown>): void => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

  const api = (method: string, token: string, params: Record<string, unknown>, port: number): Record<string, unknown> => {
    const expected = method === 'apps.connections.open' ? appToken : botToken;
    if (token !== expected) return { ok: false, error: 'invalid_auth' };
    switch (method) {
      case 'apps.connections.open':
        return { ok: true, url: `ws://127.0.0.1:${port}/socket` };
      case 'auth.test':
        return { ok: true, url: 'https://fake.slack/', team: 'Fake', user: 'fisk', team_id: team, user_id: botUserId, bot_id: 'BFISKBOT' };
      case 'chat.postMessage': {
        const channel = str(params['channel']);
        if (channel === '') return { ok: false, error: 'channel_not_found' };
        const text = str(params['text']);
        const blocks = (params['blocks'] as Record<string, unknown>[] | undefined) ?? [];
        if (text === '' && blocks.length === 0) return { ok: false, error: 'no_text' };
        if (text.length > 40_000) return { ok: false, error: 'msg_too_long' };
        const threadTs = params['thread_ts'] === undefined ? undefined : str(params['thread_ts']);
        const message: FakeSlackMessage = { channel, ts: nextTs(), threadTs, user: botUserId, text, blocks, edits: 0 };
        messages.push(message);
        return { ok: true, channel, ts: message.ts, message: { text, ts: message.ts, user: botUserId } };
      }
      case 'chat.postEphemeral': {
        const channel = str(params['channel']);
        const user = str(params['user']);
        if (channel === '') return { ok: false, error: 'channel_not_found' };
        if (user === '') return { ok: false, error: 'user_not_in_channel' };
        const text = str(params['text']);
        if (text === '') return { ok: false, error: 'no_text' };
        ephemerals.push({ channel, user, threadTs: params['thread_ts'] === undefined ? undefined : str(params['thread_ts']), text });
        return { ok: true, message_ts: nextTs() };
      }
      case 'views.open': {
        const trigger = str(params['trigger_id']);
        const user = triggers.get(trigger);
        if (user === undefined) return { ok: false, error: trigger === '' ? 'invalid_arguments' : 'invalid_trigger_id' };
        const view = params['view'];
        if (typeof view !== 'object' || view === null || (view as Record<string, unknown>)['type'] !== 'modal')
          return { ok: false, error: 'invalid_arguments' };
        const metadata = (view as Record<string, unknown>)['private_metadata'];
        if (typeof metadata === 'string' && metadata.length > 3000) return { ok: false, error: 'invalid_arguments' };
        triggers.delete(trigger);
        const opened: FakeSlackView = { id: `V${++seq}`, user, view: view as Record<string, unknown> };
        views.push(opened);
        return { ok: true, view: { id: opened.id, ...opened.view } };
      }
      case 'chat.update': {
        const message = messages.find((x) => x.channel === params['channel'] && x.ts === params['ts']);
        if (message === undefined) return { ok: false, error: 'message_not_found' };
        if (message.user !== botUserId) return { ok: false, error: 'cant_update_message' };
        message.text = str(params['text']);
        message.blocks = (params['blocks'] as Record<string, unknown>[] | undefined) ?? [];
        message.edits++;
        return { ok: true, channel: message.channel, ts: message.ts, text: message.text };
      }
      default:
        return { ok: false, error: 'unknown_method' };
    }
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const method = url.pathname.replace(/^\/api\//, '');
      let params: Record<string, unknown>;
      try {
        params = decode(req, Buffer.concat(chunks).toString('utf8'));
      } catch {
        reply(res, { ok: false, error: 'invalid_form_data' });
        return;
      }
      const auth = req.headers.authorization ?? '';
      const token = auth.startsWith('Bearer ') ? auth.slice(7) : str(params['token']);
      calls.push({ method, params });
      const body = api(method, token, params, (server.address() as AddressInfo).port);
      reply(res, body);
      changed();
    });
  });
  const wss = new WebSocketServer({ server, path: '/socket' });
  wss.on('connection', (ws) => {
    sockets.add(ws);
    opened++;
    ws.on('message', (data: Buffer) => {
      let frame: { envelope_id?: unknown; payload?: unknown };
      try {
        frame = JSON.parse(data.toString('utf8')) as typeof frame;
      } catch {
        return;
      }
      if (typeof frame.envelope_id !== 'string') return;
      const payload = typeof frame.payload === 'object' && frame.payload !== null ? (frame.payload as Record<string, unknown>) : {};
      acks.get(frame.envelope_id)?.(payload);
      acks.delete(frame.envelope_id);
    });
    ws.on('close', () => {
      sockets.delete(ws);
      changed();
    });
    ws.send(
      JSON.stringify({
        type: 'hello',
        num_connections: sockets.size,
        debug_info: { host: 'fake', approximate_connection_time: 3600 },
        connection_info: { app_id: 'AFAKE' },
      }),
    );
    changed();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  let envelopes = 0;
  const deliver = (
    type: 'events_api' | 'interactive',
    payload: Record<string, unknown>,
    acked?: (payload: Record<string, unknown>) => void,
  ): void => {
    const open = [...sockets].find((s) => s.readyState === s.OPEN);
    if (open === undefined) throw new Error('no socket-mode client is connected to the Slack stand-in');
    const id = `env-${++envelopes}`;
    if (acked !== undefined) acks.set(id, acked);
    open.send(
      JSON.stringify({ envelope_id: id, type, accepts_response_payload: acked !== undefined, retry_attempt: 0, retry_reason: '', payload }),
    );
  };
  const trigger = (user: string): string => {
    const id = `trig-${++envelopes}`;
    triggers.set(id, user);
    return id;
  };

  const person = (post: FakeSlackPost): FakeSlackMessage => {
    const message: FakeSlackMessage = {
      channel: post.channel,
      ts: nextTs(),
      threadTs: post.threadTs,
      user: post.user ?? 'UPERSON',
      text: post.text,
      blocks: [],
      edits: 0,
    };
    messages.push(message);
    return message;
  };
  const eventOf = (type: string, message: FakeSlackMessage): Record<string, unknown> => ({
    type,
    user: message.user,
    text: message.text,
    ts: message.ts,
    channel: message.channel,
    event_ts: message.ts,
    channel_type: 'channel',
    team,
    ...(message.threadTs === undefined ? {} : { thread_ts: message.threadTs }),
  });
  const callback = (event: Record<string, unknown>): Record<string, unknown> => ({
    token: 'fake',
    team_id: team,
    api_app_id: 'AFAKE',
    type: 'event_callback',
    event_id: `Ev${++envelopes}`,
    event_time: clock,
    event,
    authorizations: [{ team_id: team, user_id: botUserId, is_bot: true }],
  });

  const until = <T>(probe: () => T | undefined, what: string, timeoutMs = 20_000): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const check = (): void => {
        let got: T | undefined;
        try {
          got = probe();
        } catch (err) {
          finish();
          reject(err instanceof Error ? err : new Error(String(err)));
          return;
        }
        if (got !== undefined) {
          finish();
          resolve(got);
        }
      };
      const timer = setTimeout(() => {
        finish();
        reject(new Error(`the Slack stand-in waited ${timeoutMs} ms for ${what}`));
      }, timeoutMs);
      const finish = (): void => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });

  return {
    apiUrl: `http://127.0.0.1:${port}/api/`,
    appToken,
    botToken,
    team,
    botUserId,
    calls,
    messages,
    ephemerals,
    views,
    thread: (channel, threadTs) => messages.filter((m) => m.channel === channel && (m.ts === threadTs || m.threadTs === threadTs)),
    get connections() {
      return sockets.size;
    },
    connected: (n = 1) =>
      until(() => (opened >= n && sockets.size > 0 ? true : undefined), `${n} socket connection(s)`).then(() => undefined),
    mention(post) {
      const message = person({ ...post, text: `<@${botUserId}> ${post.text}` });
      deliver('events_api', callback(eventOf('app_mention', message)));
      // Slack sends the plain message event too; the bot must not answer it twice
      deliver('events_api', callback(eventOf('message', message)));
      return Promise.resolve(message.ts);
    },
    say(post) {
      const message = person(post);
      deliver('events_api', callback(eventOf('message', message)));
      return Promise.resolve(message.ts);
    },
    act(press) {
      const user = press.user ?? 'UPERSON';
      // the block the element sits in gives the payload its block id, as Slack's does
      const block = press.message.blocks.find((b) =>
        b['element'] !== undefined
          ? (b['element'] as { action_id?: string }).action_id === press.actionId
          : JSON.stringify(b['elements'] ?? []).includes(`"action_id":"${press.actionId}"`),
      );
      const blockId = typeof block?.['block_id'] === 'string' ? block['block_id'] : `b-${press.actionId}`;
      const action: Record<string, unknown> = { action_id: press.actionId, block_id: blockId, action_ts: String(clock) };
      if (press.value !== undefined) Object.assign(action, { type: 'button', value: press.value });
      if (press.selectedValue !== undefined)
        Object.assign(action, {
          type: 'static_select',
          selected_option: { value: press.selectedValue, text: { type: 'plain_text', text: press.selectedValue } },
        });
      if (press.typed !== undefined) Object.assign(action, { type: 'plain_text_input', value: press.typed });
      deliver('interactive', {
        type: 'block_actions',
        user: { id: user, team_id: team },
        team: { id: team },
        api_app_id: 'AFAKE',
        token: 'fake',
        trigger_id: trigger(user),
        channel: { id: press.message.channel },
        container: {
          type: 'message',
          message_ts: press.message.ts,
          channel_id: press.message.channel,
          ...(press.message.threadTs === undefined ? {} : { thread_ts: press.message.threadTs }),
        },
        message: {
          ts: press.message.ts,
          text: press.message.text,
          user: press.message.user,
          ...(press.message.threadTs === undefined ? {} : { thread_ts: press.message.threadTs }),
        },
        actions: [action],
      });
      return Promise.resolve();
    },
    submit(submission) {
      const user = submission.user ?? submission.view.user;
      const blocks = (submission.view.view['blocks'] as Record<string, unknown>[] | undefined) ?? [];
      // every input block is in the state, typed into or not, as Slack sends it
      const values: Record<string, Record<string, { type: string; value: string | null }>> = {};
      for (const block of blocks) {
        if (block['type'] !== 'input' || typeof block['block_id'] !== 'string') continue;
        const el = block['element'] as { type?: string; action_id?: string } | undefined;
        if (el?.action_id === undefined) continue;
        values[block['block_id']] = {
          [el.action_id]: { type: el.type ?? 'plain_text_input', value: submission.values?.[block['block_id']] ?? null },
        };
      }
      return new Promise<Record<string, unknown>>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('the bot never acknowledged the view submission')), 20_000);
        try {
          deliver(
            'interactive',
            {
              type: 'view_submission',
              team: { id: team },
              user: { id: user, team_id: team },
              api_app_id: 'AFAKE',
              token: 'fake',
              trigger_id: trigger(user),
              view: { ...submission.view.view, id: submission.view.id, team_id: team, state: { values } },
            },
            (payload) => {
              clearTimeout(timer);
              resolve(payload);
            },
          );
        } catch (err) {
          clearTimeout(timer);
          reject(err instanceof Error ? err : new Error(String(err)));
        }
      });
    },
    until,
    async close() {
      for (const socket of sockets) socket.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
