// Request size with 300 tools over openai-chat (Chat Completions against the local fake server),
// harness tool search versus every definition sent:
//  - deferred: call 1 carries only the search tool, the model searches, call 2 carries the loaded
//    definitions and calls one, call 3 answers;
//  - all sent (llm.no_tool_search): call 1 calls the same command, call 2 answers.
// Bytes are the request bodies the server received, split into the tools array and the rest.
// Also: the cost of attaching the search (BM25 index over 300 tools) and of one search.
import { runAgent, settingsFromConfig } from '../../dist/agent/index.js';
import { chatCompletion, generatedApplication, startFakeModelServer } from '../../dist/agenttest/index.js';
import { parseConfigForMode } from '../../dist/config/index.js';
import { newProvider } from '../../dist/llm/index.js';
import {
  EMPTY_TOOL_SET,
  PublishedToolSetSource,
  TOOL_SEARCH_NAME,
  attachToolSearch,
  deferralPolicy,
  fisk,
  selectTools,
} from '../../dist/toolkit/index.js';

const app = generatedApplication();
const decoded = fisk.readApplicationModel(app.model);
const built = fisk.buildCommandTools(decoded, { binary: '/bin/echo', globals: [], confirmTags: [], credentialEnvNames: [] });
const select = (noToolSearch) =>
  selectTools({ sources: [{ source: 'application', tools: built.tools }], confirmTags: [], deferral: deferralPolicy(false, noToolSearch) });

const config = parseConfigForMode(
  {
    text: 'identity: bench\nsystem_prompt: You benchmark.\nllm:\n  provider: openai-chat\n  model: local-fake-1\n  budget: { max_tokens: 100000000, max_iterations: 100 }\n',
  },
  'run',
);
const fake = await startFakeModelServer();
const provider = newProvider('openai-chat', { baseUrl: `${fake.url}/v1`, callTimeoutMs: 30000, maxRetries: 0, env: {} });

function sizes(requests) {
  return requests.map((r) => {
    const tools = r.body?.tools ?? [];
    const toolBytes = Buffer.byteLength(JSON.stringify(tools));
    const total = Buffer.byteLength(r.bodyText);
    return { total_bytes: total, tools_bytes: toolBytes, other_bytes: total - toolBytes, tools: tools.length };
  });
}

async function run(source, replies) {
  fake.reset();
  fake.reply(...replies);
  const out = await runAgent({
    settings: settingsFromConfig(config),
    provider,
    tools: source,
    prompt: 'make an orders bucket with five revisions of history',
  });
  if (out.status !== 'completed') throw new Error(`run ended ${out.status}: ${out.message}`);
  return sizes(fake.requests);
}

const callKv = chatCompletion(null, { tool_calls: [{ id: 'call_kv', name: 'kv_add', arguments: { name: 'orders', history: '5' } }] });
const answer = chatCompletion('made the bucket');

const deferredSource = new PublishedToolSetSource(EMPTY_TOOL_SET);
deferredSource.publish(attachToolSearch(select(false), deferredSource));
const deferred = await run(deferredSource, [
  chatCompletion(null, { tool_calls: [{ id: 'call_s', name: TOOL_SEARCH_NAME, arguments: { query: 'create a key-value bucket' } }] }),
  callKv,
  answer,
]);

const all = select(true);
const allSent = await run(new PublishedToolSetSource(all.toolSet), [callKv, answer]);
await fake.close();

// attaching (the BM25 index) and searching, timed over repeats
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (start) => Number(process.hrtime.bigint() - start) / 1e6;
const sel = select(false);
const attaches = [];
let set;
for (let i = 0; i < 30; i++) {
  const t = process.hrtime.bigint();
  set = attachToolSearch(sel, new PublishedToolSetSource(EMPTY_TOOL_SET));
  attaches.push(ms(t));
}
const queries = app.commands.map((c) => c.description.toLowerCase());
for (const q of queries.slice(0, 50)) set.search(q, 5);
const t = process.hrtime.bigint();
for (const q of queries) set.search(q, 5);
const searchUs = (ms(t) * 1000) / queries.length;

const sum = (xs, k) => xs.reduce((n, x) => n + x[k], 0);
console.log(
  JSON.stringify({
    tools: built.tools.length,
    deferred: { per_call: deferred, total_bytes: sum(deferred, 'total_bytes'), calls: deferred.length },
    all_sent: { per_call: allSent, total_bytes: sum(allSent, 'total_bytes'), calls: allSent.length },
    first_call_ratio: +(deferred[0].total_bytes / allSent[0].total_bytes).toFixed(4),
    run_total_ratio: +(sum(deferred, 'total_bytes') / sum(allSent, 'total_bytes')).toFixed(4),
    attach_ms_median: +median(attaches).toFixed(3),
    search_us_mean: +searchUs.toFixed(1),
  }),
);
