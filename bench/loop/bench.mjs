// The agent loop per model call against a bare SDK tool loop and the peers, on each wire: Anthropic
// Messages, OpenAI Chat Completions and OpenAI Responses. Every contender runs the same task (a
// system prompt, 50 tools, 100 tool-calling turns, then an answer) against one fake model server per
// wire, each in its own process (not recording, connections kept alive), so only the client's work
// lands on this process's CPU clock. Rounds interleave every contender on every wire in a rotating
// order; each round's time is divided by the bare loop's time in the same round, and the figures
// are the median ratio with its spread (10th to 90th percentile) over the rounds, for CPU time and
// for wall time. Then start-up: `fisk --help` wall time against `node -e 0`, `fisk info` on a small
// application, and the peak resident memory of `fisk --help`.
//
// ROUNDS (default 60) and STARTS (default 20) set the sample counts.
import { fork, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { generateText, jsonSchema, stepCountIs, tool as aiTool } from 'ai';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import {
  Agent,
  OpenAIChatCompletionsModel,
  OpenAIResponsesModel,
  run as agentsRun,
  setTracingDisabled,
  tool as agentsTool,
} from '@openai/agents';
import { runAgent, MemoryJournal, settingsFromConfig } from '../../dist/agent/index.js';
import { parseConfigForMode } from '../../dist/config/index.js';
import { newProvider } from '../../dist/llm/index.js';
import { FrozenToolSet, PublishedToolSetSource, functool } from '../../dist/toolkit/index.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const TOOLS = 50;
const TURNS = 100;
const CALLS = TURNS + 1;
const ROUNDS = Number(process.env.ROUNDS ?? 60);
const STARTS = Number(process.env.STARTS ?? 20);
const MODEL = 'bench-model';
const SYSTEM = 'You benchmark.';
const PROMPT = 'do the work';
const MAX_TOKENS = 8192;

const schema = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] };
const toolName = (i) => `tool_${i}`;
const toolDescription = (i) => `Benchmark tool number ${i}; echoes its input.`;
const toolOutput = (i) => JSON.stringify({ ok: true, n: i, note: 'stream orders has 1024 messages, last at 2026-11-29T16:00:00Z' });
const toolIndex = (name) => Number(name.slice('tool_'.length));

// --- fake servers, one child process per wire -------------------------------------------------

const children = [];
async function startServer(wire) {
  const child = fork(join(here, 'fake-server.mjs'), [wire, String(TURNS), String(TOOLS)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  children.push(child);
  const { url } = await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`fake server for ${wire} exited with ${code}`)));
  });
  return url;
}
const urls = { anthropic: await startServer('anthropic'), chat: await startServer('chat'), responses: await startServer('responses') };

// --- fisk-ai ------------------------------------------------------------------------------------

const fiskTools = Array.from({ length: TOOLS }, (_, i) =>
  functool.newFuncTool({
    name: toolName(i),
    description: toolDescription(i),
    inputSchema: schema,
    handler: async () => ({ status: 'completed', output: toolOutput(i), isError: false }),
  }),
);
const source = new PublishedToolSetSource(new FrozenToolSet(fiskTools.map((tool) => ({ tool, source: 'custom', deferred: false }))));
const PROVIDER_OF = { anthropic: 'anthropic', chat: 'openai-chat', responses: 'openai' };

function fiskRunner(wire) {
  const providerName = PROVIDER_OF[wire];
  const config = parseConfigForMode(
    {
      text: `identity: bench\nsystem_prompt: ${SYSTEM}\nllm:\n  provider: ${providerName}\n  model: ${MODEL}\n  budget: { max_tokens: 100000000, max_iterations: 1000 }\n`,
    },
    'run',
  );
  const settings = settingsFromConfig(config);
  const baseUrl = wire === 'anthropic' ? urls[wire] : `${urls[wire]}/v1`;
  const provider = newProvider(providerName, { baseUrl, apiKey: 'sk-bench', callTimeoutMs: 60_000, maxRetries: 0, env: {} });
  return async () => {
    const out = await runAgent({ settings, provider, tools: source, prompt: PROMPT, journal: new MemoryJournal() });
    if (out.status !== 'completed') throw new Error(`fisk-ai run on ${wire} ended ${out.status}: ${out.message}`);
  };
}

// --- bare SDK loops -------------------------------------------------------------------------------

function bareAnthropic() {
  const client = new Anthropic({ baseURL: urls.anthropic, apiKey: 'sk-bench', maxRetries: 0 });
  const tools = Array.from({ length: TOOLS }, (_, i) => ({ name: toolName(i), description: toolDescription(i), input_schema: schema }));
  return async () => {
    const messages = [{ role: 'user', content: PROMPT }];
    for (let calls = 0; ; calls++) {
      const res = await client.messages.create({ model: MODEL, max_tokens: MAX_TOKENS, system: SYSTEM, messages, tools });
      messages.push({ role: 'assistant', content: res.content });
      const uses = res.content.filter((b) => b.type === 'tool_use');
      if (uses.length === 0) return expectCalls(calls + 1, 'bare anthropic');
      messages.push({
        role: 'user',
        content: uses.map((u) => ({ type: 'tool_result', tool_use_id: u.id, content: toolOutput(toolIndex(u.name)) })),
      });
    }
  };
}

function bareChat() {
  const client = new OpenAI({ baseURL: `${urls.chat}/v1`, apiKey: 'sk-bench', maxRetries: 0 });
  const tools = Array.from({ length: TOOLS }, (_, i) => ({
    type: 'function',
    function: { name: toolName(i), description: toolDescription(i), parameters: schema },
  }));
  return async () => {
    const messages = [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: PROMPT },
    ];
    for (let calls = 0; ; calls++) {
      const res = await client.chat.completions.create({ model: MODEL, max_tokens: MAX_TOKENS, messages, tools });
      const message = res.choices[0].message;
      messages.push(message);
      const uses = message.tool_calls ?? [];
      if (uses.length === 0) return expectCalls(calls + 1, 'bare chat');
      for (const u of uses) messages.push({ role: 'tool', tool_call_id: u.id, content: toolOutput(toolIndex(u.function.name)) });
    }
  };
}

function bareResponses() {
  const client = new OpenAI({ baseURL: `${urls.responses}/v1`, apiKey: 'sk-bench', maxRetries: 0 });
  const tools = Array.from({ length: TOOLS }, (_, i) => ({
    type: 'function',
    name: toolName(i),
    description: toolDescription(i),
    parameters: schema,
    strict: false,
  }));
  return async () => {
    const input = [{ role: 'user', content: PROMPT }];
    for (let calls = 0; ; calls++) {
      const res = await client.responses.create({
        model: MODEL,
        instructions: SYSTEM,
        max_output_tokens: MAX_TOKENS,
        store: false,
        input,
        tools,
      });
      input.push(...res.output);
      const uses = res.output.filter((o) => o.type === 'function_call');
      if (uses.length === 0) return expectCalls(calls + 1, 'bare responses');
      for (const u of uses) input.push({ type: 'function_call_output', call_id: u.call_id, output: toolOutput(toolIndex(u.name)) });
    }
  };
}

function expectCalls(calls, who) {
  if (calls !== CALLS) throw new Error(`${who} made ${calls} model calls, expected ${CALLS}`);
}

// --- the Vercel AI SDK -----------------------------------------------------------------------------

const aiTools = Object.fromEntries(
  Array.from({ length: TOOLS }, (_, i) => [
    toolName(i),
    aiTool({ description: toolDescription(i), inputSchema: jsonSchema(schema), execute: async () => toolOutput(i) }),
  ]),
);
function vercel(wire) {
  const model =
    wire === 'anthropic'
      ? createAnthropic({ baseURL: `${urls.anthropic}/v1`, apiKey: 'sk-bench' })(MODEL)
      : wire === 'chat'
        ? createOpenAI({ baseURL: `${urls.chat}/v1`, apiKey: 'sk-bench' }).chat(MODEL)
        : createOpenAI({ baseURL: `${urls.responses}/v1`, apiKey: 'sk-bench' }).responses(MODEL);
  return async () => {
    const out = await generateText({
      model,
      system: SYSTEM,
      prompt: PROMPT,
      tools: aiTools,
      maxOutputTokens: MAX_TOKENS,
      maxRetries: 0,
      stopWhen: stepCountIs(CALLS + 10),
    });
    expectCalls(out.steps.length, `vercel ${wire}`);
  };
}

// --- the OpenAI Agents SDK (OpenAI wires only), on the openai client it ships with ------------------

setTracingDisabled(true);
const AgentsOpenAI = createRequire(createRequire(import.meta.url).resolve('@openai/agents-openai'))('openai').OpenAI;
const agentsTools = Array.from({ length: TOOLS }, (_, i) =>
  agentsTool({
    name: toolName(i),
    description: toolDescription(i),
    parameters: { ...schema, additionalProperties: true },
    strict: false,
    execute: async () => toolOutput(i),
  }),
);
function agents(wire) {
  const client = new AgentsOpenAI({ baseURL: `${urls[wire]}/v1`, apiKey: 'sk-bench', maxRetries: 0 });
  const model = wire === 'chat' ? new OpenAIChatCompletionsModel(client, MODEL) : new OpenAIResponsesModel(client, MODEL);
  const agent = new Agent({
    name: 'bench',
    instructions: SYSTEM,
    model,
    tools: agentsTools,
    modelSettings: { maxTokens: MAX_TOKENS, store: false },
  });
  return async () => {
    const out = await agentsRun(agent, PROMPT, { maxTurns: CALLS + 10 });
    if (out.finalOutput !== 'All done.') throw new Error(`agents ${wire} ended with ${JSON.stringify(out.finalOutput)}`);
  };
}

// --- the interleaved rounds -------------------------------------------------------------------------

const contenders = [];
for (const wire of ['anthropic', 'chat', 'responses']) {
  const bare = wire === 'anthropic' ? bareAnthropic() : wire === 'chat' ? bareChat() : bareResponses();
  contenders.push({ wire, name: 'bare_sdk', run: bare });
  contenders.push({ wire, name: 'fisk_ai', run: fiskRunner(wire) });
  if (wire !== 'anthropic') contenders.push({ wire, name: 'openai_agents', run: agents(wire) });
  contenders.push({ wire, name: 'vercel_ai', run: vercel(wire) });
}

async function measure(fn) {
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  await fn();
  const wall = Number(process.hrtime.bigint() - start) / 1e6;
  const used = process.cpuUsage(cpu);
  return { wall: wall / CALLS, cpu: (used.user + used.system) / 1e3 / CALLS };
}

// warm every contender (JIT, connections), then collect
for (let w = 0; w < 3; w++) for (const c of contenders) await c.run();
const samples = new Map(contenders.map((c) => [c, []]));
for (let r = 0; r < ROUNDS; r++) {
  // rotate the order so no contender always runs first (or right after a given other)
  const order = contenders.map((_, i) => contenders[(i + r) % contenders.length]);
  if (globalThis.gc) globalThis.gc();
  for (const c of order) samples.get(c).push(await measure(c.run));
  if ((r + 1) % 10 === 0) process.stderr.write(`loop: ${r + 1}/${ROUNDS} rounds\n`);
}

for (const child of children) child.disconnect();

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (s.length - 1) * q;
  const lo = Math.floor(at);
  return s[lo] + (s[Math.ceil(at)] - s[lo]) * (at - lo);
};
const r3 = (x) => Math.round(x * 1000) / 1000;
const spread = (xs) => ({ median: r3(quantile(xs, 0.5)), p10: r3(quantile(xs, 0.1)), p90: r3(quantile(xs, 0.9)) });

const loop = {};
for (const wire of ['anthropic', 'chat', 'responses']) {
  const bare = samples.get(contenders.find((c) => c.wire === wire && c.name === 'bare_sdk'));
  const out = { bare_sdk_ms_per_call: { cpu: spread(bare.map((s) => s.cpu)), wall: spread(bare.map((s) => s.wall)) } };
  for (const c of contenders.filter((x) => x.wire === wire && x.name !== 'bare_sdk')) {
    const mine = samples.get(c);
    out[c.name] = {
      ms_per_call: { cpu: spread(mine.map((s) => s.cpu)), wall: spread(mine.map((s) => s.wall)) },
      ratio_to_bare: { cpu: spread(mine.map((s, i) => s.cpu / bare[i].cpu)), wall: spread(mine.map((s, i) => s.wall / bare[i].wall)) },
    };
  }
  loop[wire] = out;
}

// --- start-up -----------------------------------------------------------------------------------------

const cli = join(root, 'dist', 'bin', 'fisk.cjs');
const work = mkdtempSync(join(tmpdir(), 'fisk-bench-start-'));
const appPath = join(work, 'streams.mjs');
writeFileSync(
  appPath,
  `#!${process.execPath}\nimport { Command } from ${JSON.stringify(createRequire(import.meta.url).resolve('commander'))};\n` +
    `import { answerIntrospection, tagCommand } from ${JSON.stringify(join(root, 'dist', 'app', 'index.js'))};\n` +
    readFileSync(join(here, 'app', 'streams.txt'), 'utf8'),
  { mode: 0o755 },
);
const agentYaml = join(work, 'agent.yaml');
writeFileSync(
  agentYaml,
  `identity: bench\nsystem_prompt: You look after streams.\napplication_path: ${appPath}\nllm:\n  model: claude-fake-1\n`,
);
const probe = join(here, '..', 'lib', 'rss-probe.cjs');

function timeOnce(args, env = {}) {
  const start = process.hrtime.bigint();
  const res = spawnSync(process.execPath, args, { cwd: work, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (res.status !== 0) throw new Error(`node ${args.join(' ')} exited ${res.status}: ${res.stderr}`);
  return ms;
}
const bareNode = [];
const help = [];
const info = [];
const rss = [];
for (let i = 0; i < STARTS + 2; i++) {
  const n = timeOnce(['-e', '0']);
  const h = timeOnce([cli, '--help']);
  const f = timeOnce([cli, 'info', '--config', agentYaml], { ANTHROPIC_API_KEY: 'sk-bench' });
  const rssFile = join(work, `rss-${i}`);
  timeOnce(['--require', probe, cli, '--help'], { FISK_BENCH_RSS_FILE: rssFile });
  if (i < 2) continue; // warm the file cache
  bareNode.push(n);
  help.push(h);
  info.push(f);
  rss.push(Number(readFileSync(rssFile, 'utf8')) / 1024);
}
rmSync(work, { recursive: true, force: true });

console.log(
  JSON.stringify({
    tools: TOOLS,
    tool_turns: TURNS,
    model_calls_per_run: CALLS,
    rounds: ROUNDS,
    spread: 'median, 10th and 90th percentile over rounds; ratios are per round against the bare SDK loop of the same round',
    loop,
    goal_ratio_fisk_to_bare: 1.0,
    startup: {
      samples: STARTS,
      node_e0_ms: spread(bareNode),
      fisk_help_ms: spread(help),
      fisk_help_vs_node: spread(help.map((h, i) => h / bareNode[i])),
      fisk_info_small_app_ms: spread(info),
      fisk_help_max_rss_mib: spread(rss),
      goals: { fisk_help_vs_node: 2.5, fisk_info_ms: 250, fisk_help_rss_mib: 70 },
    },
  }),
);
