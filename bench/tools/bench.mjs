// Tool loading and execution costs, against the built library:
//  - introspect and build the tools of a 500-command application (one process spawn included);
//  - build alone from an already decoded model;
//  - render one call's argv;
//  - run a trivial command through the tool (process group, one output socket, head+tail capture)
//    versus a bare child_process.spawn of the same command. Target: ratio <= 1.2.
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadApplicationTools, fisk } from '../../dist/toolkit/index.js';

const none = { tools: [], tags: [] };
const flag = (name, extra = {}) => ({
  name,
  help: `the ${name} flag`,
  short: '',
  default: [],
  envar: '',
  place_holder: '',
  required: false,
  hidden: false,
  boolean: false,
  negatable: false,
  cumulative: false,
  completions: [],
  ...extra,
});
const arg = (name, extra = {}) => ({
  name,
  help: `the ${name} argument`,
  default: [],
  envar: '',
  place_holder: '',
  required: false,
  hidden: false,
  cumulative: false,
  ...extra,
});

function leaf(name) {
  const flags = [
    flag('count'),
    flag('force', { boolean: true }),
    flag('color', { boolean: true, negatable: true }),
    flag('label', { cumulative: true }),
    flag('level'),
  ];
  const args = [arg('target', { required: true }), arg('rest', { cumulative: true })];
  return {
    name,
    aliases: [],
    help: `Runs ${name}`,
    help_long: '',
    hidden: false,
    default: false,
    tags: ['ai:read_only'],
    flags,
    args,
    commands: [],
    restricted_schema: {
      type: 'object',
      properties: {
        count: { type: 'integer' },
        force: { type: 'boolean' },
        color: { type: 'boolean' },
        label: { type: 'array', items: { type: 'string' } },
        level: { type: 'string', enum: ['a', 'b', 'c'] },
        target: { type: 'string' },
        rest: { type: 'array', items: { type: 'string' } },
      },
      required: ['target'],
      additionalProperties: false,
    },
  };
}

// 500 leaves: 25 groups of 20 commands.
const model = {
  name: 'big',
  help: 'A large application',
  version: '1.0.0',
  author: '',
  flags: [flag('context')],
  args: [],
  commands: Array.from({ length: 25 }, (_, g) => ({
    name: `group${g}`,
    aliases: [],
    help: `Group ${g}`,
    help_long: '',
    hidden: false,
    default: false,
    tags: [],
    flags: [],
    args: [],
    commands: Array.from({ length: 20 }, (_, c) => leaf(`cmd${c}`)),
  })),
};

const dir = mkdtempSync(join(tmpdir(), 'fisk-bench-tools-'));
const modelFile = join(dir, 'model.json');
writeFileSync(modelFile, JSON.stringify(model));
const app = join(dir, 'big-app.mjs');
writeFileSync(
  app,
  `#!/usr/bin/env node\nimport { readFileSync } from 'node:fs';\nprocess.stdout.write(readFileSync(${JSON.stringify(modelFile)}, 'utf8'));\n`,
);
chmodSync(app, 0o755);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (start) => Number(process.hrtime.bigint() - start) / 1e6;

try {
  const loadOpts = {
    applicationPath: app,
    globalFlags: ['context'],
    confirmTags: [],
    include: none,
    exclude: none,
    credentialEnvNames: [],
  };
  let tools = [];
  const loads = [];
  for (let i = 0; i < 7; i++) {
    const t = process.hrtime.bigint();
    const loaded = await loadApplicationTools(loadOpts);
    loads.push(ms(t));
    tools = loaded.source.tools;
  }

  const decoded = fisk.readApplicationModel(JSON.parse(JSON.stringify(model)));
  const builds = [];
  for (let i = 0; i < 20; i++) {
    const t = process.hrtime.bigint();
    fisk.buildCommandTools(decoded, { binary: app, globals: [decoded.flags[0]], confirmTags: [], credentialEnvNames: [] });
    builds.push(ms(t));
  }

  const input =
    '{"target":"orders","count":3,"force":true,"color":false,"label":["x","y"],"level":"b","rest":["one","two"],"context":"prod"}';
  const tool = tools[250];
  const renders = 50_000;
  for (let i = 0; i < 2000; i++) tool.argv(input);
  let t = process.hrtime.bigint();
  for (let i = 0; i < renders; i++) tool.argv(input);
  const renderUs = (ms(t) * 1000) / renders;

  // A trivial command: /bin/echo through a command tool built over it, and a bare spawn of it.
  const echoTools = fisk.buildCommandTools(decoded, {
    binary: '/bin/echo',
    globals: [],
    confirmTags: [],
    credentialEnvNames: ['ANTHROPIC_API_KEY'],
  }).tools;
  const echoTool = echoTools[0];
  const argv = echoTool.argv('{"target":"x"}');
  const signal = new AbortController().signal;
  const bare = () =>
    new Promise((resolve, reject) => {
      const c = spawn('/bin/echo', argv, { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      c.stdout.on('data', (d) => (out += d));
      c.stderr.on('data', (d) => (out += d));
      c.on('error', reject);
      c.on('close', () => resolve(out));
    });
  const viaTool = async () => {
    const r = await echoTool.execute('{"target":"x"}', {}, signal);
    if (r.isError) throw new Error(r.output);
    return r.output;
  };
  const rounds = 300;
  for (let i = 0; i < 30; i++) {
    await bare();
    await viaTool();
  }
  // Interleaved so machine load drifts hit both sides alike.
  let bareNs = 0n;
  let toolNs = 0n;
  for (let i = 0; i < rounds; i++) {
    t = process.hrtime.bigint();
    await bare();
    bareNs += process.hrtime.bigint() - t;
    t = process.hrtime.bigint();
    await viaTool();
    toolNs += process.hrtime.bigint() - t;
  }
  const bareMs = Number(bareNs) / 1e6 / rounds;
  const toolMs = Number(toolNs) / 1e6 / rounds;

  console.log(
    JSON.stringify({
      commands: tools.length,
      introspect_and_build_ms_median: Math.round(median(loads) * 10) / 10,
      build_only_ms_median: Math.round(median(builds) * 100) / 100,
      render_argv_us_per_call: Math.round(renderUs * 100) / 100,
      spawn_bare_ms_mean: Math.round(bareMs * 1000) / 1000,
      spawn_tool_ms_mean: Math.round(toolMs * 1000) / 1000,
      spawn_ratio: Math.round((toolMs / bareMs) * 1000) / 1000,
      spawn_ratio_target: 1.2,
    }),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
