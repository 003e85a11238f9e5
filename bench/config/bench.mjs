// Parsing cost of a realistic agent.yaml, per call.
import { parseConfigForMode } from '../../dist/config/index.js';

const text = `identity: bench
application_path: /usr/local/bin/tool
system_prompt: |
  You help operators with the tool.
llm:
  model: claude-sonnet-4-6
  budget: { max_tokens: 100000, call_timeout: 90s }
harness:
  confirm_tags: [impact:rw]
  memory: { enabled: true }
  knowledge:
    enabled: true
    paths: [docs]
    citations:
      - pattern: '^docs/(.+)\\.md$'
        replace: 'https://example.org/$1.html'
expose:
  agent:
    mcp: { port: 8081, builtins: [knowledge_search] }
`;
const n = 2000;
for (let i = 0; i < 200; i++) parseConfigForMode({ text }, 'run');
const start = process.hrtime.bigint();
for (let i = 0; i < n; i++) parseConfigForMode({ text }, 'run');
const ns = Number(process.hrtime.bigint() - start);
console.log(JSON.stringify({ parse_us_per_call: Math.round(ns / n / 10) / 100, iterations: n }));
