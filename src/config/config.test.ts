import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  credentialEnvNames,
  credentialLiterals,
  decodeOptions,
  describeSettings,
  parseConfigForMode,
  resolveMcpClient,
} from './index.js';
import { z } from 'zod';

const parse = (text: string, mode: Parameters<typeof parseConfigForMode>[1] = 'info') =>
  parseConfigForMode({ text, name: 'agent.yaml' }, mode);

describe('parseConfigForMode', () => {
  it('applies the documented defaults', () => {
    const c = parse('system_prompt: hi\nllm: {model: m}\n', 'run');
    expect(c.identity).toBe('fisk');
    expect(c.identitySource).toBe('default');
    expect(c.llm.provider).toBe('anthropic');
    expect(c.llm.budget.maxTokens).toBe(500_000);
    expect(c.llm.budget.maxIterations).toBe(50);
    expect(c.llm.budget.maxOutputTokens).toBe(8192);
    expect(c.llm.budget.callTimeout).toEqual({ text: '120s', ms: 120_000 });
    expect(c.llm.budget.toolTimeout?.ms).toBe(300_000);
    expect(c.llm.thinking).toBe('unset');
    expect(c.harness.pii.mode).toBe('redact');
    expect(c.harness.memory).toMatchObject({ enabled: false, backend: 'file', backendNamed: false, options: '{}' });
    expect(c.harness.sessions.backend).toBe('file');
    expect(c.harness.knowledge).toMatchObject({ directory: 'knowledge/fisk', topK: 5, maxInjectedTokens: 6000 });
    expect(c.expose.mcp).toBeUndefined();
    expect(c.telemetry.sampleRatio).toBeUndefined();
  });

  it('derives the identity from the application binary when none is written', () => {
    const c = parse('application_path: /usr/local/bin/opsctl\n');
    expect(c.identity).toBe('opsctl');
    expect(c.identitySource).toBe('application');
  });

  it('keeps three-state thinking and raises the output default when thinking is on', () => {
    expect(parse('llm: {thinking: {enabled: true}}').llm).toMatchObject({ thinking: 'on', budget: { maxOutputTokens: 16_384 } });
    expect(parse('llm: {thinking: {enabled: false}}').llm.thinking).toBe('off');
    expect(parse('llm: {thinking: {enabled: true}, budget: {max_output_tokens: 1000}}').llm.budget.maxOutputTokens).toBe(1000);
  });

  it('keeps an explicit zero sample ratio', () => {
    expect(parse('telemetry: {sample_ratio: 0}').telemetry.sampleRatio).toBe(0);
  });

  it('treats a zero tool timeout as no timeout', () => {
    expect(parse('llm: {budget: {tool_timeout: 0}}').llm.budget.toolTimeout).toBeUndefined();
    expect(parse('llm: {budget: {tool_timeout: "0s"}}').llm.budget.toolTimeout).toBeUndefined();
  });

  it('normalizes lists and enumerations', () => {
    const c = parse(`
application_path: /bin/app
global_flags: [" --context ", context, "", "-v"]
harness:
  confirm_tags: [" impact:rw ", impact:rw, ""]
  pii: {mode: " REJECT "}
include: {tags: ["", ops, ops]}
expose: {agent: {mcp: {confirm_over_mcp: " Always "}}}
`);
    expect(c.globalFlags).toEqual(['context', 'v']);
    expect(c.harness.confirmTags).toEqual(['impact:rw']);
    expect(c.harness.pii.mode).toBe('reject');
    expect(c.include.tags).toEqual(['', 'ops']);
    expect(c.expose.mcp?.confirmOverMcp).toBe('always');
  });

  it('reads JSON as well as YAML, with options blocks as canonical JSON', () => {
    const json = parse('{"harness": {"memory": {"enabled": true, "options": {"z": 1, "a": {"y": 2, "b": 3}}}}}');
    const yaml = parse('harness:\n  memory:\n    enabled: true\n    options:\n      a: {b: 3, y: 2}\n      z: 1\n');
    expect(json.harness.memory.options).toBe('{"a":{"b":3,"y":2},"z":1}');
    expect(yaml.harness.memory.options).toBe(json.harness.memory.options);
  });

  it('treats an empty expose.agent.mcp block as present', () => {
    expect(parse('expose:\n  agent:\n    mcp:\n').expose.mcp).toMatchObject({ port: 0, address: '', maxConcurrentTools: 2 });
    expect(parse('expose: {agent: {mcp: {}}}').expose.mcp?.toolTimeout.ms).toBe(30_000);
  });

  it('reads a file from disk and reports a missing one clearly', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fisk-config-'));
    try {
      const path = join(dir, 'agent.yaml');
      writeFileSync(path, 'identity: disk\n');
      expect(parseConfigForMode({ path }, 'info').identity).toBe('disk');
      expect(() => parseConfigForMode({ path: join(dir, 'nope.yaml') }, 'info')).toThrow(/does not exist; pass --config/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('treats an empty document as an empty configuration', () => {
    expect(parse('').identity).toBe('fisk');
    expect(parse('# only a comment\n').identity).toBe('fisk');
  });
});

describe('origins', () => {
  it('says which values came from the file and lets overrides win', () => {
    const c = parse('llm: {model: m, budget: {max_iterations: 7}}');
    const settings = describeSettings(c, [{ key: 'llm.base_url', value: 'http://127.0.0.1:1', origin: 'environment' }]);
    const byKey = new Map(settings.map((s) => [s.key, s]));
    expect(byKey.get('llm.model')).toMatchObject({ value: 'm', origin: 'file' });
    expect(byKey.get('llm.budget.max_iterations')).toMatchObject({ value: 7, origin: 'file' });
    expect(byKey.get('llm.budget.max_tokens')).toMatchObject({ value: 500_000, origin: 'default' });
    expect(byKey.get('llm.base_url')).toMatchObject({ value: 'http://127.0.0.1:1', origin: 'environment' });
  });

  it('lists the sandbox limits and tool grants with their origin', () => {
    const c = parseConfigForMode(
      {
        text: 'harness:\n  sandbox:\n    enabled: true\n    limits: {address_space: 2GiB, cpu_seconds: 30}\n    tools: [{tools: ["^fetch_", "^get_"], network: true, writable: [/srv/dl]}]\n',
        name: '/srv/agent/agent.yaml',
      },
      'info',
    );
    const byKey = new Map(describeSettings(c, []).map((s) => [s.key, s]));
    expect(byKey.get('harness.sandbox.limits.address_space')).toMatchObject({ value: 2 ** 31, origin: 'file' });
    expect(byKey.get('harness.sandbox.limits.cpu_seconds')).toMatchObject({ value: 30, origin: 'file' });
    expect(byKey.get('harness.sandbox.limits.open_files')).toMatchObject({ value: null, origin: 'default' });
    expect(byKey.get('harness.sandbox.tools')).toMatchObject({ value: ['tools:^fetch_,^get_ network writes:/srv/dl'], origin: 'file' });
    expect(new Map(describeSettings(parse(''), []).map((s) => [s.key, s])).get('harness.sandbox.tools')).toMatchObject({
      value: [],
      origin: 'default',
    });
  });
});

describe('decodeOptions', () => {
  const schema = z.strictObject({ directory: z.string().optional() });
  it('decodes a valid block', () => {
    expect(decodeOptions('{"directory":"x"}', schema, 'harness.memory.options', 'file')).toEqual({ directory: 'x' });
  });
  it('refuses an unknown option naming the key and the accepted ones', () => {
    expect(() => decodeOptions('{"directroy":"x"}', schema, 'harness.memory.options', 'file')).toThrow(
      /harness\.memory\.options\.directroy: is not an option of the file backend; accepted: directory/,
    );
  });
  it('refuses a mistyped option', () => {
    expect(() => decodeOptions('{"directory":3}', schema, 'harness.sessions.options', 'file')).toThrow(
      /harness\.sessions\.options\.directory/,
    );
  });
});

describe('credentials', () => {
  it('strips provider, OTLP and Slack variables, the embeddings key, every MCP reference and the served token', () => {
    const config = parse(`
harness:
  knowledge:
    enabled: true
    embeddings: {base_url: "http://127.0.0.1:9", model: e, api_key_env: EMBED_TOKEN}
mcp_clients:
  - name: docs
    url: "https://mcp.example.com/\${MCP_PATH_SECRET}/mcp"
    headers: {Authorization: "Bearer \${MCP_TOKEN}"}
  - name: gh
    command: gh-mcp
    env: {GITHUB_TOKEN: "\${GH_PAT}"}
expose:
  agent:
    mcp: {auth_token_env: SERVED_TOKEN}
`);
    const names = credentialEnvNames(config);
    expect(names).not.toContain('GITHUB_TOKEN');
    for (const name of [
      'ANTHROPIC_API_KEY',
      'OPENAI_API_KEY',
      'OTEL_EXPORTER_OTLP_HEADERS',
      'SLACK_BOT_TOKEN',
      'EMBED_TOKEN',
      'MCP_TOKEN',
      'MCP_PATH_SECRET',
      'GH_PAT',
      'SERVED_TOKEN',
    ]) {
      expect(names).toContain(name);
    }
  });

  it('withholds the A2A HTTP bearer token variable from tools, and defaults the listener to loopback', () => {
    const c = parse('expose: {agent: {a2a_http: {port: 8443, auth_token_env: AGENT_TOKEN}}}\n');
    expect(credentialEnvNames(c)).toContain('AGENT_TOKEN');
    expect(c.expose.a2aHttp).toMatchObject({ address: '127.0.0.1', port: 8443, publicUrl: undefined, workers: 1 });
    expect(c.expose.a2aHttp?.questionTimeout.text).toBe('10m');
    expect(credentialEnvNames(parse('system_prompt: hi\n'))).not.toContain('AGENT_TOKEN');
  });

  it('ends a public_url in a slash, and lets a loopback listener go without a token', () => {
    const c = parse('expose: {agent: {a2a_http: {port: 8443, address: "::1", public_url: "https://agents.example/ops"}}}\n');
    expect(c.expose.a2aHttp).toMatchObject({ address: '::1', publicUrl: 'https://agents.example/ops/', authTokenEnv: undefined });
  });

  it('reads max_output as bytes or KiB/MiB, 64 KiB when unset', () => {
    const c = parse(`
mcp_clients:
  - {name: a, command: x}
  - {name: b, command: x, max_output: 256KiB}
  - {name: c, command: x, max_output: 4096}
  - {name: d, command: x, max_output: "1 MiB"}
`);
    expect(c.mcpClients.map((m) => m.maxOutput)).toEqual([65536, 262144, 4096, 1048576]);
  });

  it('reads confirm as a mode or a list of patterns, auto when unset', () => {
    const c = parse(`
mcp_clients:
  - {name: a, command: x}
  - {name: b, command: x, confirm: ALWAYS}
  - {name: c, command: x, confirm: never}
  - {name: d, command: x, confirm: ["^write_", "delete"]}
`);
    expect(c.mcpClients.map((m) => m.confirm)).toEqual([
      { mode: 'auto' },
      { mode: 'always' },
      { mode: 'never' },
      { mode: 'patterns', patterns: ['^write_', 'delete'] },
    ]);
  });

  it('expands ${VAR} only in env, headers and url, and lists the secrets to redact', () => {
    const c = parse(`
mcp_clients:
  - name: a
    command: "\${NOT_EXPANDED}"
    args: ["\${ALSO_LITERAL}"]
    env: {TOKEN: "\${SECRET_TOKEN}"}
`);
    const client = c.mcpClients[0];
    if (client === undefined) throw new Error('expected a client');
    const resolved = resolveMcpClient(client, 0, { SECRET_TOKEN: 'abcdefghij' });
    expect(resolved.env).toEqual({ TOKEN: 'abcdefghij' });
    expect(client.command).toBe('${NOT_EXPANDED}');
    expect(client.args).toEqual(['${ALSO_LITERAL}']);
    expect(resolved.secrets).toEqual(['abcdefghij']);
    expect(() => resolveMcpClient(client, 0, {})).toThrow(/mcp_clients\[0\]\.env\.TOKEN: refers to \$\{SECRET_TOKEN\}/);
  });
});

describe('ConfigError', () => {
  it('carries every issue and the first key', () => {
    try {
      parse('llm: {modle: x}\nharness: {memroy: {}}\n');
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const e = err as ConfigError;
      expect(e.issues.map((i) => i.key)).toEqual(['llm.modle', 'harness.memroy']);
      expect(e.code).toBe('unknown_key');
    }
  });
});

describe('remote_agents', () => {
  it('prepares NATS and A2A HTTP peers with their defaults', () => {
    const config = parse(
      'system_prompt: p\nllm: {model: m}\nnats_context: lab\nremote_agents:\n  - name: ops\n  - name: planner\n    alias: plan\n    url: http://127.0.0.1:9999/\n    headers: {Authorization: "Bearer ${PLAN_TOKEN}"}\n    confirm: true\n    timeout: 90s\n    count_budget: true\n',
      'run',
    );
    expect(config.remoteAgents).toEqual([
      {
        name: 'ops',
        alias: 'ops',
        transport: 'nats',
        url: undefined,
        headers: {},
        confirm: false,
        timeout: { text: '10m', ms: 600_000 },
        countBudget: false,
      },
      {
        name: 'planner',
        alias: 'plan',
        transport: 'a2a-http',
        url: 'http://127.0.0.1:9999/',
        headers: { Authorization: 'Bearer ${PLAN_TOKEN}' },
        confirm: true,
        timeout: { text: '90s', ms: 90_000 },
        countBudget: true,
      },
    ]);
    expect(credentialEnvNames(config)).toContain('PLAN_TOKEN');
    expect(credentialLiterals(config)).toEqual([{ key: 'remote_agents[1].headers.Authorization', value: 'Bearer ' }]);
  });

  it('holds the text a header spells out as a credential, whole or around its references', () => {
    const config = parse(
      'system_prompt: p\nllm: {model: m}\nremote_agents:\n  - name: planner\n    url: http://127.0.0.1:9999/\n    headers: {X-Api-Key: abcd-1234-efgh, X-Pair: "${USER_NAME}:pass-in-yaml-99", X-Only: "${ONLY}"}\n',
      'run',
    );
    expect(credentialLiterals(config)).toEqual([
      { key: 'remote_agents[0].headers.X-Api-Key', value: 'abcd-1234-efgh' },
      { key: 'remote_agents[0].headers.X-Pair', value: ':pass-in-yaml-99' },
    ]);
    expect(credentialEnvNames(config)).toEqual(expect.arrayContaining(['ONLY', 'USER_NAME']));
  });

  it('holds the header text and URL password an MCP server entry spells out, but not its env settings', () => {
    const config = parse(
      'system_prompt: p\nllm: {model: m}\nmcp_clients:\n  - name: hosted\n    url: "https://ops:pw-written-here-1@mcp.example.com/mcp"\n    headers: {X-Api-Key: literal-key-0001, X-Ref: "Token ${HOSTED_TOKEN}"}\n  - name: local\n    command: srv\n    env: {LOG_LEVEL: debugging-verbose}\n  - name: bare\n    url: "https://only-a-token-here@mcp.example.com/"\n',
      'run',
    );
    expect(credentialLiterals(config)).toEqual([
      { key: 'mcp_clients[0].headers.X-Api-Key', value: 'literal-key-0001' },
      { key: 'mcp_clients[0].headers.X-Ref', value: 'Token ' },
      { key: 'mcp_clients[0].url', value: 'pw-written-here-1' },
      { key: 'mcp_clients[2].url', value: 'only-a-token-here' },
    ]);
    expect(credentialEnvNames(config)).toContain('HOSTED_TOKEN');
  });
});
