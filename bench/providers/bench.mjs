// Model provider overhead: request assembly plus response decoding for a 200-message conversation
// with 50 tools, per call, against the local fake model server, compared with the same call made
// with the bare SDK (ratio, target <= 1.10), and the assembly cost alone (target < 1 ms per call).
import os from 'node:os';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { startFakeModelServer } from '../../dist/agenttest/index.js';
import { anthropicToolUse, chatCompletion, openaiFunctionCallItem, openaiMessageItem, openaiResponse } from '../../dist/agenttest/index.js';
import { newProvider } from '../../dist/llm/index.js';
import { buildParams, decodeMessage } from '../../dist/llm/anthropic/index.js';
import { buildChatParams, buildResponsesParams } from '../../dist/llm/openai/index.js';
import { RawSlots } from '../../dist/llm/raw-splice.js';

const tools = Array.from({ length: 50 }, (_, i) => ({
  name: `tool_${i}`,
  description: `Tool number ${i}: does a thing with a resource and reports what happened, in JSON.`,
  inputSchema: {
    type: 'object',
    properties: { name: { type: 'string', description: 'The resource name' }, count: { type: 'integer' }, force: { type: 'boolean' } },
    required: ['name'],
    additionalProperties: false,
  },
  deferLoading: false,
}));

const messages = [];
for (let i = 0; messages.length < 200; i++) {
  if (i % 2 === 0) {
    messages.push({
      role: 'user',
      content:
        i === 0
          ? [{ type: 'text', text: 'Please look after the resources.' }]
          : [
              {
                type: 'tool_result',
                toolUseId: `call_${i - 1}`,
                content: JSON.stringify({ command: `tool_${i % 50} --name r${i}`, exit_code: 0, output: 'ok '.repeat(80) }),
              },
            ],
    });
  } else {
    messages.push({
      role: 'assistant',
      content: [
        { type: 'text', text: `Step ${i}: checking the next resource.` },
        { type: 'tool_use', id: `call_${i}`, name: `tool_${i % 50}`, input: `{"name":"r${i}","count":${i},"force":false}` },
      ],
    });
  }
}
// The conversation must end on a user turn.
messages[199] = { role: 'user', content: [{ type: 'tool_result', toolUseId: 'call_198', content: '{"ok":true}' }] };

const request = {
  model: 'bench-model',
  system: [{ text: 'You look after resources.' }, { text: 'Use the tools; answer tersely.' }],
  messages,
  tools,
  maxOutputTokens: 1024,
  thinking: 'unset',
  interactive: false,
  noPromptCache: false,
};

const signal = new AbortController().signal;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// Wall time and CPU time (user + system, this process: client and fake server alike) per call.
// On a shared, loaded machine the CPU figure is the steadier measure of the work a call costs.
async function timeLoop(fn, n) {
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await fn();
  const used = process.cpuUsage(cpu);
  return { wall: Number(process.hrtime.bigint() - start) / n / 1e6, cpu: (used.user + used.system) / n / 1e3 };
}

function timeSync(fn, n) {
  for (let i = 0; i < Math.min(n, 200); i++) fn();
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) fn();
  const used = process.cpuUsage(cpu);
  return { wall: Number(process.hrtime.bigint() - start) / n / 1e6, cpu: (used.user + used.system) / n / 1e3 };
}

async function compare(name, reply, basePath, ours, bare) {
  const server = await startFakeModelServer({ fallback: reply, record: false });
  const baseUrl = server.url + basePath;
  const provider = newProvider(name, { baseUrl, callTimeoutMs: 60_000, maxRetries: 0, env: {} });
  const client = bare(baseUrl);
  const oursCall = () => provider.call(request, signal);
  const bareCall = () => client();
  for (let i = 0; i < 30; i++) {
    await oursCall();
    await bareCall();
  }
  const ours_ = [];
  const bare_ = [];
  for (let round = 0; round < 15; round++) {
    ours_.push(await timeLoop(oursCall, 20));
    bare_.push(await timeLoop(bareCall, 20));
  }
  await server.close();
  const ow = median(ours_.map((x) => x.wall));
  const bw = median(bare_.map((x) => x.wall));
  const oc = median(ours_.map((x) => x.cpu));
  const bc = median(bare_.map((x) => x.cpu));
  const assembly = timeSync(ours, 2000);
  return {
    provider_ms_per_call: round3(ow),
    bare_sdk_ms_per_call: round3(bw),
    ratio_wall: round3(ow / bw),
    provider_cpu_ms_per_call: round3(oc),
    bare_sdk_cpu_ms_per_call: round3(bc),
    ratio_cpu: round3(oc / bc),
    assembly_ms_per_call: round3(assembly.wall),
    assembly_cpu_ms_per_call: round3(assembly.cpu),
  };
}

const round3 = (x) => Math.round(x * 1000) / 1000;

const anthropicParams = buildParams(request);
const anthropicReply = anthropicToolUse([{ id: 'call_x', name: 'tool_1', input: { name: 'r', count: 1 } }], {
  text: 'Next one.',
  usage: { input_tokens: 50000, output_tokens: 40 },
});
const anthropic = await compare(
  'anthropic',
  anthropicReply,
  '',
  () => {
    const slots = new RawSlots();
    return slots.serialize(buildParams(request, slots));
  },
  (baseURL) => {
    const c = new Anthropic({ apiKey: 'k', baseURL, maxRetries: 0 });
    return () => c.messages.create(anthropicParams);
  },
);
const anthropicBody = JSON.stringify(anthropicReply.body);
anthropic.decode_cpu_ms_per_call = round3(timeSync(() => decodeMessage(anthropicBody), 5000).cpu);

const responsesParams = buildResponsesParams(request);
const openai = await compare(
  'openai',
  openaiResponse([openaiMessageItem('Next one.'), openaiFunctionCallItem('call_x', 'tool_1', { name: 'r' })], {
    usage: { input_tokens: 50000, output_tokens: 40 },
  }),
  '/v1',
  () => {
    const slots = new RawSlots();
    return slots.serialize(buildResponsesParams(request, slots));
  },
  (baseURL) => {
    const c = new OpenAI({ apiKey: 'k', baseURL, maxRetries: 0 });
    return () => c.responses.create(responsesParams);
  },
);

const chatParams = buildChatParams(request);
const openaiChat = await compare(
  'openai-chat',
  chatCompletion('Next one.', { tool_calls: [{ id: 'call_x', name: 'tool_1', arguments: { name: 'r' } }] }),
  '/v1',
  () => JSON.stringify(buildChatParams(request)),
  (baseURL) => {
    const c = new OpenAI({ apiKey: 'k', baseURL, maxRetries: 0 });
    return () => c.chat.completions.create(chatParams);
  },
);

console.log(
  JSON.stringify({
    load_average_1m: round3(os.loadavg()[0]),
    messages: 200,
    tools: 50,
    request_bytes: JSON.stringify(anthropicParams).length,
    anthropic,
    openai,
    'openai-chat': openaiChat,
  }),
);
