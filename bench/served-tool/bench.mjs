// A served command tool over NATS against its floor, at 1 and 4 concurrent callers: fisk's a2a tool
// service serving an application command (a shell script, so the spawn is cheap and the same on
// both sides), called with the a2a client, against a bare NATS responder that spawns the same
// command with child_process.execFile and answers the same encoded reply bytes. Both on one private
// nats-server, both sides' CPU in this process. The service's cap is raised to the callers. Rounds
// alternate the two (SERVED_TOOL_ROUNDS, default 9, of SERVED_TOOL_CALLS calls, default 60); the
// ratio of wall time per call is taken per round and reported as median and spread. Prints one
// JSON line.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import {
  A2aClient,
  buildAgentCard,
  createTransport,
  decode,
  encode,
  selectExposed,
  stampReply,
  stampRequest,
  startToolService,
} from '../../dist/a2a/index.js';
import { startNatsServer } from '../../dist/agenttest/index.js';
import { loadApplicationTools } from '../../dist/toolkit/index.js';
import { stats } from '../lib/process-time.mjs';

const ROUNDS = Number(process.env.SERVED_TOOL_ROUNDS ?? 9);
const CALLS = Number(process.env.SERVED_TOOL_CALLS ?? 60);
const dir = mkdtempSync(join(tmpdir(), 'fisk-bench-served-'));
const model = {
  name: 'echoer',
  help: 'Echoes',
  version: '1.0.0',
  author: '',
  flags: [],
  args: [],
  commands: [
    {
      name: 'echo',
      aliases: [],
      help: 'Echoes a word',
      help_long: '',
      hidden: false,
      default: false,
      tags: ['ai:read_only'],
      flags: [],
      args: [
        { name: 'word', help: 'the word', default: [], envar: '', place_holder: '', required: true, hidden: false, cumulative: false },
      ],
      commands: [],
      restricted_schema: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'], additionalProperties: false },
    },
  ],
};
writeFileSync(join(dir, 'model.json'), JSON.stringify(model));
const app = join(dir, 'app');
writeFileSync(app, `#!/bin/sh\nif [ "$1" = "--fisk-introspect" ]; then exec cat "${join(dir, 'model.json')}"; fi\nshift\necho "$@"\n`, {
  mode: 0o755,
});

const none = { tools: [], tags: [] };
const loaded = await loadApplicationTools({
  applicationPath: app,
  globalFlags: [],
  confirmTags: [],
  include: none,
  exclude: none,
  credentialEnvNames: [],
});
const tools = selectExposed(loaded.source.tools).exposed;
if (tools.length !== 1) throw new Error(`expected the echo tool to be served, got ${tools.length}`);

const server = await startNatsServer();
const serving = await connect({ servers: server.url });
const calling = await connect({ servers: server.url });
const s2 = (xs) => {
  const st = stats(xs.map((x) => x * 100));
  return { median: st.median / 100, p10: st.p10 / 100, p90: st.p90 / 100 };
};
try {
  const out = {};
  for (const callers of [1, 4]) {
    const service = await startToolService(
      { connection: serving },
      {
        identity: `bench${callers}`,
        card: buildAgentCard({ name: `bench${callers}`, version: '1', tools }),
        tools,
        slots: callers,
        workDir: dir,
      },
    );
    const client = new A2aClient(createTransport('nats', { connection: calling }), 'caller');
    // the floor: decode the request, spawn the command, answer the reply
    const bare = serving.subscribe(`bare.${callers}`, {
      queue: 'bare',
      callback: (_e, m) => {
        const req = decode(m.data);
        execFile(app, ['echo', req.input.word], { cwd: dir }, (err, stdout) => {
          const body = { output: JSON.stringify({ command: `echo ${req.input.word}`, exit_code: err ? 1 : 0, output: stdout }) };
          m.respond(encode(stampReply('io.choria.fisk-ai.v1.tool.reply', body, req, { self: { name: 'bare' } })));
        });
      },
    });
    const requestOf = (word) =>
      encode(
        stampRequest(
          'io.choria.fisk-ai.v1.tool.request',
          { name: 'echo', input: { word } },
          { sender: { name: 'caller' }, recipient: { name: 'bare' } },
        ),
      );
    const fiskCall = (w) => client.callTool(`bench${callers}`, 'echo', { word: w });
    const bareCall = (w) => calling.request(`bare.${callers}`, requestOf(w), { timeout: 10_000 });
    const block = async (call) => {
      let next = 0;
      const t = performance.now();
      await Promise.all(
        Array.from({ length: callers }, async () => {
          while (next < CALLS) {
            next++;
            const r = await call(`w${next}`);
            if (r === undefined) throw new Error('no reply');
          }
        }),
      );
      return (performance.now() - t) / CALLS;
    };
    await block(fiskCall);
    await block(bareCall);
    const fisk = [];
    const bareMs = [];
    const ratio = [];
    for (let r = 0; r < ROUNDS; r++) {
      const got = {};
      for (const side of r % 2 === 0 ? ['fisk', 'bare'] : ['bare', 'fisk']) got[side] = await block(side === 'fisk' ? fiskCall : bareCall);
      fisk.push(got.fisk);
      bareMs.push(got.bare);
      ratio.push(got.fisk / got.bare);
    }
    bare.unsubscribe();
    await service.stop?.();
    await service.close?.();
    out[`callers_${callers}`] = {
      calls_per_round: CALLS,
      rounds: ROUNDS,
      fisk_ms_per_call: s2(fisk),
      bare_ms_per_call: s2(bareMs),
      ratio: s2(ratio),
    };
  }
  console.log(JSON.stringify({ ...out, goal_ratio: 1.2 }));
} finally {
  await serving.close();
  await calling.close();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
