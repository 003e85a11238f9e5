// Served-call throughput and latency of the MCP server against a bare official-SDK server serving
// the same handler, for a trivial in-process tool and a trivial command tool, at concurrency 2
// and 16 (the fisk server's cap raised to match). Each concurrent caller is its own client
// session over real HTTP on loopback.
//
// Then `command_vs_bare_spawn`: one caller calling the command tool through `fisk mcp`'s server
// against a bare official-SDK server whose handler spawns the same command itself
// (child_process.execFile) and answers the same envelope; rounds alternate the two
// (MCP_BENCH_ROUNDS, default 7, of MCP_BENCH_SPAWN_CALLS calls, default 20), and the ratio of
// wall time per call is taken per round and reported as median and spread. Prints one JSON line.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, isInitializeRequest, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { parseConfigForMode } from '../../dist/config/index.js';
import { assembleTools, openRuntime } from '../../dist/host/index.js';
import { startMcpServer } from '../../dist/mcp/index.js';
import { jsonOutcome, newFuncTool } from '../../dist/toolkit/functool/index.js';

const PID_APP = fileURLToPath(new URL('../../test/mcp/fixtures/pid-app.mjs', import.meta.url));

const inProcess = newFuncTool({
  name: 'ping',
  description: 'Answers pong',
  inputSchema: { type: 'object', properties: { n: { type: 'integer' } } },
  handler: (input) => Promise.resolve(jsonOutcome({ pong: input.n ?? 0 })),
});

const config = parseConfigForMode({ text: `identity: bench\napplication_path: ${PID_APP}\nexpose: {agent: {mcp: {}}}\n` }, 'mcp');
// the tools `fisk mcp` serves for this configuration, built the way it builds them
const runtime = await openRuntime(config, 'mcp', { env: process.env });
const assembled = await assembleTools(runtime, 'mcp');
const command = assembled.served.find((t) => t.name === 'echo');
if (command === undefined)
  throw new Error(`the fixture application serves no echo tool; it serves ${assembled.served.map((t) => t.name).join(', ')}`);

/** The floor for a command: the SDK's own session handling and a spawn of the command, nothing else. */
const spawnEcho = {
  name: 'echo',
  modelDescription: 'Echoes a word',
  inputSchema: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] },
  execute: (input) =>
    new Promise((resolve) => {
      const { word } = JSON.parse(input);
      execFile(PID_APP, ['echo', word], (err, stdout) =>
        resolve({ output: stdout, exec: { command: `echo ${word}`, exitCode: err ? 1 : 0 } }),
      );
    }),
};

/** The bare comparison: the SDK's own session handling and the tool's execute, nothing else. */
async function startBare(tool) {
  const transports = new Map();
  const http = createServer(async (req, res) => {
    let body;
    if (req.method === 'POST') {
      const chunks = [];
      for await (const c of req) chunks.push(c);
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    }
    const id = req.headers['mcp-session-id'];
    if (typeof id === 'string') return transports.get(id).handleRequest(req, res, body);
    if (!isInitializeRequest(body)) {
      res.writeHead(400).end();
      return;
    }
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (s) => transports.set(s, transport),
    });
    const server = new Server({ name: 'bare', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [{ name: tool.name, description: tool.modelDescription, inputSchema: tool.inputSchema }],
    }));
    server.setRequestHandler(CallToolRequestSchema, async (r, extra) => {
      const out = await tool.execute(JSON.stringify(r.params.arguments ?? {}), { timeoutMs: 30_000 }, extra.signal);
      const text =
        out.exec === undefined
          ? out.output
          : JSON.stringify({ command: out.exec.command, exit_code: out.exec.exitCode, output: out.output });
      return { content: [{ type: 'text', text }] };
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  });
  await new Promise((r) => http.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${http.address().port}`,
    close: async () => {
      await Promise.allSettled([...transports.values()].map((t) => t.close()));
      http.closeAllConnections();
      await new Promise((r) => http.close(r));
    },
  };
}

async function startFisk(tool, concurrency) {
  return startMcpServer({
    host: '127.0.0.1',
    port: 0,
    identity: { name: 'bench', version: '1.0.0', instructions: '' },
    tools: [tool],
    confirmOverMcp: 'auto',
    maxConcurrentTools: concurrency,
    toolTimeoutMs: 30_000,
    workDir: process.cwd(),
  });
}

function quantile(sorted, q) {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/** Runs `calls` calls over `concurrency` client sessions; returns the latencies and the wall time. */
async function measure(url, tool, args, concurrency, calls) {
  const clients = await Promise.all(
    Array.from({ length: concurrency }, async () => {
      const c = new Client({ name: 'bench', version: '1.0.0' });
      await c.connect(new StreamableHTTPClientTransport(new URL(url)));
      return c;
    }),
  );
  // warm up every session
  await Promise.all(clients.map((c) => c.callTool({ name: tool, arguments: args })));
  const latencies = [];
  let next = 0;
  const start = process.hrtime.bigint();
  await Promise.all(
    clients.map(async (c) => {
      while (next < calls) {
        next += 1;
        const t0 = process.hrtime.bigint();
        const r = await c.callTool({ name: tool, arguments: args });
        if (r.isError) throw new Error(`call failed: ${JSON.stringify(r.content)}`);
        latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  await Promise.allSettled(clients.map((c) => c.close()));
  return { latencies, seconds };
}

const round = (x) => Math.round(x * 100) / 100;

function summary(runs) {
  const latencies = runs.flatMap((r) => r.latencies).sort((a, b) => a - b);
  const seconds = runs.reduce((a, r) => a + r.seconds, 0);
  return {
    calls_per_s: round(latencies.length / seconds),
    p50_ms: round(quantile(latencies, 0.5)),
    p99_ms: round(quantile(latencies, 0.99)),
  };
}

const cases = [
  { name: 'in_process', tool: inProcess, args: { n: 1 }, calls: 500 },
  { name: 'command', tool: command, args: { word: 'hi' }, calls: 50 },
];
const out = {};
for (const k of cases) {
  for (const concurrency of [2, 16]) {
    const fiskRuns = [];
    const bareRuns = [];
    // an unmeasured round on each side first, so neither is measured with a cold JIT; then fisk,
    // bare, bare, fisk, so on a machine whose load drifts neither side always goes first
    for (const [side, measured] of [
      ['bare', false],
      ['fisk', false],
      ['fisk', true],
      ['bare', true],
      ['bare', true],
      ['fisk', true],
    ]) {
      const server = side === 'fisk' ? await startFisk(k.tool, concurrency) : await startBare(k.tool);
      const run = await measure(server.url, k.tool.name, k.args, concurrency, measured ? k.calls : Math.ceil(k.calls / 4));
      await server.close();
      if (measured) (side === 'fisk' ? fiskRuns : bareRuns).push(run);
    }
    const f = summary(fiskRuns);
    const b = summary(bareRuns);
    out[`${k.name}_c${concurrency}`] = { fisk: f, bare: b, throughput_ratio: Math.round((f.calls_per_s / b.calls_per_s) * 1000) / 1000 };
  }
}
{
  const rounds = Number(process.env.MCP_BENCH_ROUNDS ?? 7);
  const calls = Number(process.env.MCP_BENCH_SPAWN_CALLS ?? 20);
  const fiskMs = [];
  const bareMs = [];
  const ratio = [];
  const fiskServer = await startFisk(command, 1);
  const bareServer = await startBare(spawnEcho);
  await measure(fiskServer.url, 'echo', { word: 'hi' }, 1, 5);
  await measure(bareServer.url, 'echo', { word: 'hi' }, 1, 5);
  for (let i = 0; i < rounds; i++) {
    const got = {};
    for (const side of i % 2 === 0 ? ['fisk', 'bare'] : ['bare', 'fisk']) {
      const run = await measure(side === 'fisk' ? fiskServer.url : bareServer.url, 'echo', { word: 'hi' }, 1, calls);
      got[side] = (run.seconds * 1000) / run.latencies.length;
    }
    fiskMs.push(got.fisk);
    bareMs.push(got.bare);
    ratio.push(got.fisk / got.bare);
  }
  await fiskServer.close();
  await bareServer.close();
  const spread = (xs) => {
    const sorted = [...xs].sort((a, b) => a - b);
    const at = (q) => round(sorted[Math.min(sorted.length - 1, Math.floor(q * (sorted.length - 1) + 0.5))]);
    return { median: at(0.5), p10: at(0.1), p90: at(0.9) };
  };
  out.command_vs_bare_spawn = {
    rounds,
    calls_per_round: calls,
    fisk_ms_per_call: spread(fiskMs),
    bare_ms_per_call: spread(bareMs),
    ratio: spread(ratio),
    goal_ratio: 1.1,
  };
}
await runtime.close();
console.log(JSON.stringify(out));
