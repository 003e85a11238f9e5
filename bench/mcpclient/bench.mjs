// Importing from an MCP server: time to open a stdio session with the reference server
// (spawn, handshake, first tool list, descriptor checks), and per-call latency of an imported
// tool against a bare official-SDK client calling the same server. Prints one JSON line.
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { parseConfigForMode } from '../../dist/config/index.js';
import { openMcpSessions } from '../../dist/mcp/index.js';

const EVERYTHING = fileURLToPath(new URL('../../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url));
const OPENS = 5;
const CALLS = 300;
// the entry is read from configuration text, as a user's agent.yaml is, so it has every key the
// client expects (sandbox off: the reference server runs as a plain child, as the bare client's does)
const config = parseConfigForMode(
  {
    text: `identity: bench\nsystem_prompt: You answer.\nllm:\n  model: claude-fake-1\nmcp_clients:\n  - name: everything\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(EVERYTHING)}, stdio]\n    startup_timeout: 30s\n`,
    name: 'bench/mcpclient',
  },
  'run',
);
const entry = config.mcpClients[0];
const opts = { env: process.env, credentialEnvNames: ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY'] };

function stats(samples) {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return { n: s.length, p50_ms: +at(0.5).toFixed(3), p90_ms: +at(0.9).toFixed(3), max_ms: +s[s.length - 1].toFixed(3) };
}

const opens = [];
for (let i = 0; i < OPENS; i++) {
  const t0 = performance.now();
  const set = await openMcpSessions([entry], opts);
  opens.push(performance.now() - t0);
  await set.close();
}

const bareOpens = [];
for (let i = 0; i < OPENS; i++) {
  const t0 = performance.now();
  const c = new Client({ name: 'bare', version: '0' }, { capabilities: {} });
  await c.connect(new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' }));
  await c.listTools();
  bareOpens.push(performance.now() - t0);
  await c.close();
}

const set = await openMcpSessions([entry], opts);
const echo = set.sources()[0].tools.find((t) => t.name === 'echo');
const signal = new AbortController().signal;
const bare = new Client({ name: 'bare', version: '0' }, { capabilities: {} });
await bare.connect(new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' }));
// interleaved, so both see the same machine
const imported = [];
const direct = [];
for (let i = 0; i < CALLS; i++) {
  let t0 = performance.now();
  await echo.execute(JSON.stringify({ message: `m${i}` }), { timeoutMs: 30_000 }, signal);
  imported.push(performance.now() - t0);
  t0 = performance.now();
  await bare.callTool({ name: 'echo', arguments: { message: `m${i}` } });
  direct.push(performance.now() - t0);
}
await set.close();
await bare.close();

process.stdout.write(
  `${JSON.stringify({ open_stdio: stats(opens), open_stdio_bare_sdk: stats(bareOpens), call_imported: stats(imported), call_bare_sdk: stats(direct) })}\n`,
);
