import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNatsServer } from '../agenttest/nats-server.js';
import type { NatsServer } from '../agenttest/nats-server.js';
import { fakeTool } from '../toolkit/test-tools.js';
import type { Outcome } from '../toolkit/tool.js';
import { buildAgentCard, selectExposed } from './card.js';
import { A2aClient } from './client.js';
import { encode } from './codec.js';
import { A2aError } from './errors.js';
import { InprocBus } from './inproc.js';
import { MAX_MESSAGE_BYTES, subjects } from './protocol.js';
import { createTransport } from './registry.js';
import { stampRequest } from './stamp.js';
import { startToolService } from './tool-service.js';
import type { EndpointSpec, IncomingRequest, ServiceHandle, Transport } from './transport.js';
import { registerTransport, ServingPath } from './transport.js';
import { eventually } from '../agenttest/eventually.js';

let server: NatsServer;
const conns: NatsConnection[] = [];
beforeAll(async () => {
  server = await startNatsServer();
});
afterAll(async () => {
  for (const c of conns) await c.close();
  await server.stop();
});

/** Two transports on one network: a serving side and a calling side. */
type Pair = { serving: Transport; calling: Transport };
const bindings: Array<[string, () => Promise<Pair>]> = [
  [
    'inproc',
    () => {
      const bus = new InprocBus();
      return Promise.resolve({ serving: createTransport('inproc', { bus }), calling: createTransport('inproc', { bus, timeoutMs: 5000 }) });
    },
  ],
  [
    'nats',
    async () => {
      const a = await connect({ servers: server.url });
      const b = await connect({ servers: server.url });
      conns.push(a, b);
      return { serving: createTransport('nats', { connection: a }), calling: createTransport('nats', { connection: b, timeoutMs: 5000 }) };
    },
  ],
];

const exposed = { exposure: { mcp: false, a2a: true } } as const;
const completed = (output: string, extra: Partial<Extract<Outcome, { status: 'completed' }>> = {}): Promise<Outcome> =>
  Promise.resolve({ status: 'completed', output, isError: false, ...extra });

function errorOf(p: Promise<unknown>): Promise<A2aError> {
  return p.then(
    () => {
      throw new Error('expected a failure');
    },
    (err: unknown) => {
      if (!(err instanceof A2aError)) throw err;
      return err;
    },
  );
}

describe.each(bindings)('a2a transport conformance: %s', (_name, make) => {
  let pair: Pair;
  let service: ServiceHandle;
  let release: () => void = () => undefined;
  const started: string[] = [];
  const tools = [
    fakeTool('echo', { ...exposed, handler: (input) => completed(JSON.stringify(input)) }),
    fakeTool('fails', {
      ...exposed,
      handler: () => completed('exit status 3', { exec: { command: 'fails --now', exitCode: 3, truncated: false } }),
    }),
    fakeTool('broken', { ...exposed, handler: () => completed('no such file: /bin/app', { isError: true }) }),
    fakeTool('hold', {
      ...exposed,
      handler: (input) => {
        started.push(String(input['tag']));
        return new Promise((resolve) => {
          const prev = release;
          release = () => {
            prev();
            resolve({ status: 'completed', output: 'released', isError: false });
          };
        });
      },
    }),
    fakeTool('secret', { handler: () => completed('never') }),
  ];
  const selection = selectExposed(tools);

  beforeAll(async () => {
    pair = await make();
    service = await startToolService(pair.serving, {
      identity: 'peer-1',
      card: buildAgentCard({ name: 'peer-1', version: '1.2.3', tools: selection.exposed }),
      tools: selection.exposed,
      slots: 1,
    });
  });
  afterAll(async () => {
    release();
    await service.stop();
  });

  it('serves the card with only exposed tools', async () => {
    expect(selection.dropped).toEqual([{ name: 'secret', reason: 'not_exposed', detail: expect.any(String) as string }]);
    const card = await new A2aClient(pair.calling, 'caller').discover('peer-1');
    expect(card.name).toBe('peer-1');
    expect(card.version).toBe('1.2.3');
    expect(card.protocols).toEqual(['io.choria.fisk-ai.v1']);
    expect(card.tools?.map((t) => t.name)).toEqual(['echo', 'fails', 'broken', 'hold']);
    expect(card.sender).toEqual({ name: 'peer-1' });
    expect(card.recipient).toEqual({ name: 'caller' });
  });

  it('answers calls in-band: a result, a non-zero exit, a failed command, an unknown and an unexposed tool', async () => {
    const c = new A2aClient(pair.calling, 'caller');
    const ok = await c.callTool('peer-1', 'echo', { a: 1 });
    expect([ok.output, ok.is_error, ok.exec]).toEqual(['{"a":1}', undefined, undefined]);
    const noInput = await c.callTool('peer-1', 'echo', null);
    expect(noInput.output).toBe('{}');
    const exit = await c.callTool('peer-1', 'fails', {});
    expect(exit.is_error).toBeUndefined();
    expect(exit.exec).toEqual({ command: 'fails --now', exit_code: 3 });
    const broken = await c.callTool('peer-1', 'broken', {});
    expect([broken.is_error, broken.output]).toEqual([true, 'no such file: /bin/app']);
    const unknown = await c.callTool('peer-1', 'nope', {});
    expect([unknown.is_error, unknown.output]).toEqual([true, 'tool "nope" is not available; call only the tools in your tool list']);
    const hidden = await c.callTool('peer-1', 'secret', {});
    expect(hidden.is_error).toBe(true);
  });

  it('advertises the per-call limit in the service description, and none for an agent nobody serves', async () => {
    const c = new A2aClient(pair.calling, 'caller');
    expect(await c.toolTimeout('peer-1')).toBe(30_000);
    expect(await c.toolTimeout('nobody-here', { timeoutMs: 1000 })).toBeUndefined();
  });

  it('reports a request taken and never answered as lost, not as unavailable', async () => {
    const quiet: EndpointSpec = { name: 'quiet', subject: 'conformance.quiet', slotted: false, handle: () => Promise.resolve() };
    const h = await pair.serving.serve({ name: 'quiet-1', version: '0.0.0', description: 'quiet', slots: 1, endpoints: [quiet] });
    try {
      const err = await errorOf(pair.calling.request('conformance.quiet', new Uint8Array(0), { timeoutMs: 200 }));
      expect(err.code).toBe('lost');
    } finally {
      await h.stop();
    }
  });

  it('reports nobody listening as unavailable', async () => {
    const err = await errorOf(new A2aClient(pair.calling, 'caller').discover('nobody-here', { timeoutMs: 1000 }));
    expect(err.code).toBe('unavailable');
  });

  it('refuses oversized, malformed and mislabelled bodies as transport errors (400), never in-band', async () => {
    const transport = pair.calling;
    const cases: Array<[string, Uint8Array]> = [
      ['oversized', new Uint8Array(MAX_MESSAGE_BYTES + 10).fill(0x7b)],
      ['malformed', new TextEncoder().encode('{"protocol": "io.choria')],
      ['not an object', new TextEncoder().encode('[1,2,3]')],
      ['mislabelled', encode(stampRequest('io.choria.fisk-ai.v1.discovery.request', {}, { sender: { name: 'x' } }))],
      [
        'unknown protocol',
        new TextEncoder().encode(
          JSON.stringify({
            ...stampRequest('io.choria.fisk-ai.v1.tool.request', { name: 'echo' }, { sender: { name: 'x' } }),
            protocol: 'io.choria.fisk-ai.v2.tool.request',
          }),
        ),
      ],
      [
        'forged sender',
        new TextEncoder().encode(
          JSON.stringify({
            ...stampRequest('io.choria.fisk-ai.v1.tool.request', { name: 'echo' }, { sender: { name: 'x' } }),
            sender: { name: 'a.>' },
          }),
        ),
      ],
    ];
    for (const [what, body] of cases) {
      const err = await errorOf(transport.request(subjects.tool('peer-1'), body));
      expect([what, err.code, err.status]).toEqual([what, 'rejected', 400]);
    }
    // still serving afterwards
    expect((await new A2aClient(transport, 'caller').callTool('peer-1', 'echo', {})).output).toBe('{}');
  });

  it('takes the slot before the worker starts: a second call waits for the first to free it', async () => {
    const c = new A2aClient(pair.calling, 'caller');
    started.length = 0;
    const first = c.callTool('peer-1', 'hold', { tag: 'first' });
    await eventually(() => started.length > 0, 'the first call to start');
    const second = c.callTool('peer-1', 'hold', { tag: 'second' });
    // a discovery round trip sent after the second call proves the server has received it; a call
    // given a slot starts in the turn it is accepted, with no I/O before the tool, so a second call
    // wrongly let through would have started before the discovery reply left
    await c.discover('peer-1');
    expect(started).toEqual(['first']);
    release();
    expect((await first).output).toBe('released');
    await eventually(() => started.length >= 2, 'the second call to start once the slot freed', { observed: () => started });
    expect(started).toEqual(['first', 'second']);
    release();
    expect((await second).output).toBe('released');
  });

  it('bounds the calls waiting for a slot: one more is refused at once with 503, and the caller hears why', async () => {
    const gates: Array<() => void> = [];
    const ran: string[] = [];
    const tools = selectExposed([
      fakeTool('gate', {
        ...exposed,
        handler: (input) => {
          ran.push(String(input['tag']));
          return new Promise((resolve) =>
            gates.push(() => resolve({ status: 'completed', output: `done ${String(input['tag'])}`, isError: false })),
          );
        },
      }),
    ]).exposed;
    const svc = await startToolService(pair.serving, {
      identity: 'busy-1',
      card: buildAgentCard({ name: 'busy-1', version: '1', tools }),
      tools,
      slots: 1,
      maxWaiting: 1,
    });
    const client = new A2aClient(pair.calling, 'caller');
    const running = client.callTool('busy-1', 'gate', { tag: 'a' });
    await eventually(() => ran.length > 0, 'the first call to run');
    const waiting = client.callTool('busy-1', 'gate', { tag: 'b' });
    // a discovery round trip sent after the second call proves the server holds it
    await client.discover('busy-1');
    const refused = await errorOf(client.callTool('busy-1', 'gate', { tag: 'c' }));
    expect([refused.code, refused.status, refused.message]).toEqual([
      'rejected',
      503,
      'remote agent refused the message: 503 the service is busy: all 1 of its slots are taken and 1 call is already waiting for one; try again later',
    ]);
    gates.shift()?.();
    expect((await running).output).toBe('done a');
    await eventually(() => gates.length > 0, 'the waiting call to run once the slot freed', { observed: () => ran });
    gates.shift()?.();
    expect((await waiting).output).toBe('done b');
    expect(ran).toEqual(['a', 'b']);
    await svc.stop();
  });

  it('carries a reply set on one inbox and publishes to subscribers', async () => {
    const got: string[] = [];
    const sub = await pair.serving.subscribe('choria.fisk-ai.test.sub', (d) => got.push(new TextDecoder().decode(d)));
    await pair.calling.publish('choria.fisk-ai.test.sub', new TextEncoder().encode('hello'));
    await eventually(() => got.length > 0, 'the published message to arrive');
    expect(got).toEqual(['hello']);
    sub.close();
    const svc = await pair.serving.serve({
      name: 'streamer',
      version: '0.0.0',
      description: 'x',
      slots: 1,
      endpoints: [
        {
          name: 'stream',
          subject: 'choria.fisk-ai.test.stream',
          slotted: false,
          handle: async (req) => {
            req.respond(new TextEncoder().encode('1'));
            for (const n of ['2', '3']) await pair.serving.publish(req.replyTo as string, new TextEncoder().encode(n));
          },
        },
      ],
    });
    const stream = await pair.calling.requestStream('choria.fisk-ai.test.stream', new Uint8Array());
    const seen = [];
    for (let i = 0; i < 3; i++) seen.push(new TextDecoder().decode(await stream.next(5000)));
    expect(seen).toEqual(['1', '2', '3']);
    expect((await errorOf(stream.next(50))).code).toBe('unavailable');
    stream.close();
    await svc.stop();
  });
});

describe('the nats binding as a micro service', () => {
  it('answers $SRV.PING, $SRV.INFO and $SRV.STATS to plain NATS requests', async () => {
    const nc = await connect({ servers: server.url });
    conns.push(nc);
    const tools = selectExposed([fakeTool('echo', { ...exposed, handler: (i) => completed(JSON.stringify(i)) })]).exposed;
    const svc = await startToolService(
      { connection: nc },
      { identity: 'micro-1', card: buildAgentCard({ name: 'micro-1', version: '9', tools }), tools },
    );
    const ping = (await nc.request('$SRV.PING.micro-1', undefined, { timeout: 2000 })).json<Record<string, unknown>>();
    expect([ping['name'], ping['version'], ping['type']]).toEqual(['micro-1', '0.0.0', 'io.nats.micro.v1.ping_response']);
    const info = (await nc.request('$SRV.INFO.micro-1', undefined, { timeout: 2000 })).json<{
      description: string;
      endpoints: Array<Record<string, unknown>>;
    }>();
    expect(info.description).toBe('fisk-ai a2a tool server');
    expect(info.endpoints.map((e) => [e['name'], e['subject'], e['queue_group']])).toEqual([
      ['discovery', 'choria.fisk-ai.discovery.micro-1', 'micro-1'],
      ['tool', 'choria.fisk-ai.tool.micro-1', 'micro-1'],
    ]);
    const client = new A2aClient(createTransport('nats', { connection: nc }), 'caller');
    await client.callTool('micro-1', 'echo', {});
    const stats = (await nc.request('$SRV.STATS.micro-1', undefined, { timeout: 2000 })).json<{
      endpoints: Array<{ name: string; num_requests: number }>;
    }>();
    expect(stats.endpoints.find((e) => e.name === 'tool')?.num_requests).toBe(1);
    await svc.stop();
  });
});

describe('the transport registry', () => {
  it('refuses an empty name, a missing factory, a duplicate and an unknown name', () => {
    expect(() => registerTransport('', () => createTransport('inproc', { bus: new InprocBus() }))).toThrow(/needs a name/);
    expect(() => registerTransport('x', undefined as unknown as () => Transport)).toThrow(/no factory/);
    expect(() => registerTransport('nats', () => createTransport('inproc', { bus: new InprocBus() }))).toThrow(/already registered/);
    expect(() => createTransport('carrier-pigeon', {})).toThrow(/unknown a2a transport "carrier-pigeon"; known: inproc, nats/);
    expect(() => createTransport('nats', {})).toThrow(/needs a NATS connection/);
  });
});

describe('the per-call limit', () => {
  it('answers in-band when a tool outlives it, even one that ignores its signal', async () => {
    const bus = new InprocBus();
    const tools = selectExposed([fakeTool('stuck', { ...exposed, handler: () => new Promise(() => undefined) })]).exposed;
    const svc = await startToolService(createTransport('inproc', { bus }), {
      identity: 'slowpoke',
      card: buildAgentCard({ name: 'slowpoke', version: '1', tools }),
      tools,
      toolTimeoutMs: 100,
    });
    const reply = await new A2aClient(createTransport('inproc', { bus }), 'caller').callTool('slowpoke', 'stuck', {});
    expect([reply.is_error, reply.output]).toEqual([
      true,
      'the tool stuck did not finish within 100ms and was stopped (a command is killed with its process group); its output is lost (the served tool timeout)',
    ]);
    await svc.stop();
  });
});

describe('the serving path', () => {
  /** A request that records how it was answered. */
  function request(tag: string, answers: string[]): IncomingRequest {
    return {
      subject: 's',
      data: new TextEncoder().encode(tag),
      headers: {},
      replyTo: 'inbox',
      respond: (d) => answers.push(`${tag}:${new TextDecoder().decode(d)}`) > 0,
      respondError: (status, description) => answers.push(`${tag}:${status} ${description}`) > 0,
    };
  }

  it('hands a freed slot to the oldest waiting request, answers a handler fault as 500, and refuses after stop', async () => {
    const started: string[] = [];
    const answers: string[] = [];
    const gates = new Map<string, () => void>();
    const endpoint: EndpointSpec = {
      name: 'tool',
      subject: 's',
      slotted: true,
      handle: async (req) => {
        const tag = new TextDecoder().decode(req.data);
        started.push(tag);
        if (tag === 'boom') throw new Error('handler broke');
        await new Promise<void>((res) => gates.set(tag, res));
        req.respond(new TextEncoder().encode('done'));
      },
    };
    const path = new ServingPath(2);
    for (const tag of ['a', 'b', 'c', 'boom', 'd']) path.accept(endpoint, request(tag, answers));
    // two slots: the first two start in the turn they arrive, the rest wait without starting
    expect(started).toEqual(['a', 'b']);
    expect(path.pending).toBe(5);
    gates.get('b')?.();
    await eventually(() => started.length >= 3, 'the third request to start', { observed: () => started });
    expect(started).toEqual(['a', 'b', 'c']);
    const stopped = path.stop();
    path.accept(endpoint, request('late', answers));
    gates.get('a')?.();
    await eventually(() => started.length >= 5, 'every request accepted before the stop to start', { observed: () => started });
    gates.get('c')?.();
    gates.get('d')?.();
    await stopped;
    expect(started).toEqual(['a', 'b', 'c', 'boom', 'd']);
    expect(answers).toEqual([
      'b:done',
      'late:503 the service is stopping and takes no new requests',
      'a:done',
      'boom:500 handler broke',
      'c:done',
      'd:done',
    ]);
    expect(path.pending).toBe(0);
  });

  it('refuses a slotted request past the waiting bound and takes one again once a place frees', async () => {
    const answers: string[] = [];
    const gates: Array<() => void> = [];
    const endpoint: EndpointSpec = {
      name: 'tool',
      subject: 's',
      slotted: true,
      handle: async (req) => {
        await new Promise<void>((res) => gates.push(res));
        req.respond(new TextEncoder().encode('done'));
      },
    };
    const path = new ServingPath(2, 2);
    for (const tag of ['a', 'b', 'c', 'd', 'e']) path.accept(endpoint, request(tag, answers));
    expect(answers).toEqual([
      'e:503 the service is busy: all 2 of its slots are taken and 2 calls are already waiting for one; try again later',
    ]);
    expect(path.pending).toBe(4);
    gates.shift()?.();
    await eventually(() => answers.length >= 2, 'the first held request to answer', { observed: () => answers });
    path.accept(endpoint, request('f', answers));
    expect(path.pending).toBe(4);
    const stopped = path.stop();
    await eventually(
      () => {
        gates.shift()?.();
        return gates.length === 0 && path.pending === 0;
      },
      'every held request to be let go and answered',
      { observed: () => ({ answers, pending: path.pending }) },
    );
    await stopped;
    expect(answers.slice(1).sort()).toEqual(['a:done', 'b:done', 'c:done', 'd:done', 'f:done']);
  });

  it('runs an unslotted endpoint one request at a time, in arrival order', async () => {
    const log: string[] = [];
    const endpoint: EndpointSpec = {
      name: 'prompt',
      subject: 's',
      slotted: false,
      handle: async (req) => {
        const tag = new TextDecoder().decode(req.data);
        log.push(`start ${tag}`);
        await new Promise((r) => setTimeout(r, 5));
        log.push(`end ${tag}`);
      },
    };
    const path = new ServingPath(1);
    for (const tag of ['1', '2', '3']) path.accept(endpoint, request(tag, []));
    await path.stop();
    expect(log).toEqual(['start 1', 'end 1', 'start 2', 'end 2', 'start 3', 'end 3']);
  });
});
