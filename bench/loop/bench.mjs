// Harness overhead per loop iteration, model latency excluded by comparison: runAgent (50 tools, a
// 100-message history, PII guard on, journal in memory) against a bare Anthropic SDK tool loop
// making the same calls to the same local fake Messages server. Prints per-iteration times and
// their ratio; the target is a ratio of at most 1.10.
import Anthropic from '@anthropic-ai/sdk';
import { runAgent, MemoryJournal } from '../../dist/agent/index.js';
import { startFakeModelServer, anthropicText, anthropicToolUse } from '../../dist/agenttest/index.js';
import { parseConfigForMode } from '../../dist/config/index.js';
import { newProvider } from '../../dist/llm/index.js';
import { FrozenToolSet, PublishedToolSetSource, functool } from '../../dist/toolkit/index.js';

const TOOLS = 50;
const HISTORY = 100;
const ITERATIONS = 20; // tool-calling turns per run, then one answer
const RUNS = 15;

const schema = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] };
const toolOutput = (i) => JSON.stringify({ ok: true, n: i, note: 'stream orders has 1024 messages, last at 2026-11-29T16:00:00Z' });

const tools = Array.from({ length: TOOLS }, (_, i) =>
  functool.newFuncTool({
    name: `tool_${i}`,
    description: `Benchmark tool number ${i}; echoes its input.`,
    inputSchema: schema,
    handler: async () => ({ status: 'completed', output: toolOutput(i), isError: false }),
  }),
);
const source = new PublishedToolSetSource(new FrozenToolSet(tools.map((tool) => ({ tool, source: 'custom', deferred: false }))));

const history = [];
for (let i = 0; i < HISTORY / 2; i++) {
  history.push({ role: 'user', content: [{ type: 'text', text: `Earlier question ${i}: how many messages are in stream ${i}?` }] });
  history.push({ role: 'assistant', content: [{ type: 'text', text: `Stream ${i} held ${i * 37} messages when last checked.` }] });
}

const fake = await startFakeModelServer();
function queueRun() {
  for (let i = 0; i < ITERATIONS; i++) fake.reply(anthropicToolUse([{ id: `toolu_${i}`, name: `tool_${i % TOOLS}`, input: { text: `call ${i}` } }], { usage: { input_tokens: 10, output_tokens: 5 } }));
  fake.reply(anthropicText('All done.', { usage: { input_tokens: 10, output_tokens: 5 } }));
}

const config = parseConfigForMode({ text: 'identity: bench\nsystem_prompt: You benchmark.\nllm:\n  model: claude-fake-1\n  budget: { max_tokens: 100000000, max_iterations: 1000 }\n' }, 'run');
const provider = newProvider('anthropic', { baseUrl: fake.url, apiKey: 'sk-bench', callTimeoutMs: 30000, maxRetries: 0, env: {} });

async function harnessRun() {
  queueRun();
  const out = await runAgent({ config, provider, tools: source, prompt: 'do the work', history, journal: new MemoryJournal() });
  if (out.status !== 'completed') throw new Error(`harness run ended ${out.status}: ${out.message}`);
}

// The bare loop: the same requests the harness sends (system, tools, history, results), no gate,
// no hooks, no journal, no scanning.
const client = new Anthropic({ baseURL: fake.url, apiKey: 'sk-bench', maxRetries: 0 });
const sdkTools = tools.map((t) => ({ type: 'custom', name: t.name, description: t.modelDescription, input_schema: t.inputSchema, defer_loading: false }));
const sdkHistory = history.map((m) => ({ role: m.role, content: m.content.map((b) => ({ type: 'text', text: b.text })) }));
const handlers = new Map(tools.map((t, i) => [t.name, i]));
async function bareRun() {
  queueRun();
  const messages = [...sdkHistory, { role: 'user', content: [{ type: 'text', text: 'do the work' }] }];
  for (;;) {
    const res = await client.messages.create({ model: 'claude-fake-1', max_tokens: 8192, system: [{ type: 'text', text: 'You benchmark.' }], messages, tools: sdkTools });
    messages.push({ role: 'assistant', content: res.content });
    const calls = res.content.filter((b) => b.type === 'tool_use');
    if (calls.length === 0) return;
    messages.push({ role: 'user', content: calls.map((c) => ({ type: 'tool_result', tool_use_id: c.id, content: toolOutput(handlers.get(c.name)) })) });
  }
}

async function timePerIteration(fn) {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6 / (ITERATIONS + 1);
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

// warm both paths, then alternate run by run so load from elsewhere on the machine hits both
// alike, and compare medians so one descheduled run does not decide the figure
await harnessRun();
await bareRun();
const harnessSamples = [];
const bareSamples = [];
for (let r = 0; r < RUNS; r++) {
  bareSamples.push(await timePerIteration(bareRun));
  harnessSamples.push(await timePerIteration(harnessRun));
}
const harness = median(harnessSamples);
const bare = median(bareSamples);
await fake.close();

// The loop's own cost with model latency removed entirely: a provider that answers at once from
// prebuilt responses, so what remains is snapshot, journal, gate, dispatch, PII scan and events.
const instant = [];
for (let i = 0; i < ITERATIONS; i++) {
  instant.push({
    message: { role: 'assistant', content: [{ type: 'tool_use', id: `toolu_${i}`, name: `tool_${i % TOOLS}`, input: JSON.stringify({ text: `call ${i}` }) }] },
    stopReason: { unified: 'tool_use', raw: 'tool_use' },
    usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, thinking: 0 },
  });
}
instant.push({ message: { role: 'assistant', content: [{ type: 'text', text: 'All done.' }] }, stopReason: { unified: 'end_turn', raw: 'end_turn' }, usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, thinking: 0 } });
let next = 0;
const instantProvider = { capabilities: () => provider.capabilities(), call: async () => instant[next++ % instant.length] };
const LOOP_RUNS = 200;
for (let r = 0; r < 20; r++) await runAgent({ config, provider: instantProvider, tools: source, prompt: 'do the work', history });
const loopStart = process.hrtime.bigint();
for (let r = 0; r < LOOP_RUNS; r++) {
  next = 0;
  await runAgent({ config, provider: instantProvider, tools: source, prompt: 'do the work', history, journal: new MemoryJournal() });
}
const loopUs = Number(process.hrtime.bigint() - loopStart) / 1e3 / (LOOP_RUNS * (ITERATIONS + 1));
const r2 = (x) => Math.round(x * 1000) / 1000;
console.log(
  JSON.stringify({
    tools: TOOLS,
    history_messages: HISTORY,
    iterations_per_run: ITERATIONS + 1,
    runs: RUNS,
    harness_ms_per_iteration: r2(harness),
    bare_sdk_ms_per_iteration: r2(bare),
    overhead_ms_per_iteration: r2(harness - bare),
    ratio: r2(harness / bare),
    loop_only_us_per_iteration: Math.round(loopUs),
    target_ratio: 1.1,
  }),
);
