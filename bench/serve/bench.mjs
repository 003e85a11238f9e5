// Served prompts: prompts per second delegated over a2a to a served agent on a private
// nats-server, at 1, 2 and 4 workers (as many callers as workers), against running the same agent
// directly with startRun on the same runtime. Each prompt is one tool call and an answer from the
// fake model server, journaled to a file session store in both cases. Prints one JSON line.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { buildAgentCard, createTransport, delegate, startToolService } from '../../dist/a2a/index.js';
import { startNatsServer } from '../../dist/agenttest/index.js';
import { parseConfigForMode } from '../../dist/config/index.js';
import { openRuntime, startRun } from '../../dist/host/index.js';
import { promptChannel, startServer } from '../../dist/serve/index.js';
import { ping, startPingModel } from '../lib/ping-agent.mjs';

const PROMPTS = Number(process.env.BENCH_SERVE_PROMPTS ?? 120);
const WARMUP = 10;

const model = await startPingModel();
const nats = await startNatsServer();
const dir = mkdtempSync(join(tmpdir(), 'fisk-bench-serve-'));

async function runtimeFor(name) {
  const config = parseConfigForMode(
    {
      text: `identity: ${name}\nsystem_prompt: You answer.\nllm:\n  model: claude-sonnet-4-6\n  no_tool_search: true\nharness:\n  sessions: {backend: file, options: {directory: ${JSON.stringify(join(dir, name))}}}\n`,
    },
    'run',
  );
  return openRuntime(config, 'run', {
    env: { PATH: process.env.PATH },
    providerOptions: { baseUrl: model.url, apiKey: 'k' },
    sessions: {},
    customTools: [ping],
  });
}

async function rate(total, concurrency, one) {
  for (let i = 0; i < WARMUP; i++) await one();
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next++;
        await one();
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  return {
    prompts: total,
    per_second: Math.round((total / seconds) * 10) / 10,
    mean_ms: Math.round(((seconds * 1000) / total) * concurrency * 10) / 10,
  };
}

const results = {};
try {
  const direct = await runtimeFor('direct');
  results.direct = await rate(PROMPTS, 1, async () => {
    const handle = await startRun(direct, { prompt: 'ping', checkpoint: {} });
    const outcome = await handle.outcome;
    await handle.close();
    if (outcome.status !== 'completed') throw new Error(`direct run ended ${outcome.status}`);
  });
  // the same agent with two runs at once, to separate the cost of concurrency from that of serving
  results.direct_2_at_once = await rate(PROMPTS, 2, async () => {
    const handle = await startRun(direct, { prompt: 'ping', checkpoint: {} });
    const outcome = await handle.outcome;
    await handle.close();
    if (outcome.status !== 'completed') throw new Error(`direct run ended ${outcome.status}`);
  });
  await direct.close();

  for (const workers of [1, 2, 4]) {
    const name = `served${workers}`;
    const runtime = await runtimeFor(name);
    const serving = await connect({ servers: nats.url });
    const calling = await connect({ servers: nats.url });
    const transport = createTransport('nats', { connection: serving });
    const channel = promptChannel({ identity: name, transport, workers, elicitation: false });
    const service = await startToolService(transport, {
      identity: name,
      card: buildAgentCard({ name, version: '1', tools: [] }),
      tools: [],
      extraEndpoints: [channel.endpoint],
    });
    const server = startServer(runtime, { channels: [channel], services: [{ name: 'service', close: () => service.stop() }] });
    const caller = createTransport('nats', { connection: calling });
    results[`served_${workers}_workers`] = await rate(PROMPTS, workers, async () => {
      const end = await delegate(caller, 'bench', name, { prompt: 'ping' });
      if (end.protocol !== 'io.choria.fisk-ai.v1.result') throw new Error(`served run ended with ${JSON.stringify(end)}`);
    });
    await server.drain();
    await runtime.close();
    await serving.close();
    await calling.close();
  }
  const one = results.served_1_workers;
  results.overhead_per_prompt_ms = Math.round((1000 / one.per_second - 1000 / results.direct.per_second) * 10) / 10;
} finally {
  await model.close();
  await nats.stop();
  rmSync(dir, { recursive: true, force: true });
}
process.stdout.write(`${JSON.stringify(results)}\n`);
