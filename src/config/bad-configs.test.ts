import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfigForMode } from './index.js';
import type { Mode } from './index.js';

interface Case {
  readonly name: string;
  readonly yaml: string;
  readonly mode?: Mode;
  /** The key the message must name. */
  readonly key: string;
  /** More text the message must contain. */
  readonly says?: RegExp;
}

const RUNNABLE = 'system_prompt: p\nllm: {model: m}\n';

const CASES: readonly Case[] = [
  { name: 'misspelt top-level block', yaml: 'harnes: {}', key: 'harnes', says: /did you mean harness\?.* at agent\.yaml:1:1/ },
  {
    name: 'misspelt nested key',
    yaml: 'harness:\n  memroy: {enabled: true}\n',
    key: 'harness.memroy',
    says: /did you mean harness\.memory\?\) at agent\.yaml:2:3/,
  },
  { name: 'human_in_the_loop at top level', yaml: 'human_in_the_loop: {enabled: true}', key: 'human_in_the_loop', says: /unknown key/ },
  {
    name: 'unknown key in budget',
    yaml: 'llm: {budget: {max_token: 5}}',
    key: 'llm.budget.max_token',
    says: /did you mean llm\.budget\.max_tokens/,
  },
  { name: 'unknown key in a list entry', yaml: 'remote_tools:\n  - name: a\n    alias_: b\n', key: 'remote_tools[0].alias_' },
  {
    name: 'unknown key in an MCP client',
    yaml: 'mcp_clients: [{name: a, command: x, argv: [y]}]',
    key: 'mcp_clients[0].argv',
    says: /did you mean mcp_clients\[0\]\.args/,
  },
  {
    name: 'tag filter on an MCP client',
    yaml: 'mcp_clients: [{name: a, command: x, include: {tags: [t]}}]',
    key: 'mcp_clients[0].include.tags',
  },
  { name: 'duplicate key', yaml: 'identity: a\nidentity: b\n', key: '', says: /duplicate key "identity".* at agent\.yaml:2:1/ },
  { name: 'not a mapping', yaml: '- a\n- b\n', key: '', says: /must be a mapping/ },
  { name: 'not YAML', yaml: 'identity: [unclosed', key: '', says: /not valid YAML/ },
  {
    name: 'string where a number belongs',
    yaml: 'llm: {budget: {max_tokens: lots}}',
    key: 'llm.budget.max_tokens',
    says: /expected a number, got the string "lots"/,
  },
  {
    name: 'fraction where an integer belongs',
    yaml: 'llm: {budget: {max_iterations: 2.5}}',
    key: 'llm.budget.max_iterations',
    says: /integer/,
  },
  { name: 'string where a boolean belongs', yaml: 'harness: {no_tui: "yes"}', key: 'harness.no_tui', says: /true or false/ },
  { name: 'scalar where a list belongs', yaml: 'harness: {confirm_tags: impact:rw}', key: 'harness.confirm_tags', says: /a list/ },
  { name: 'list where a string belongs', yaml: 'identity: [a, b]', key: 'identity', says: /expected a string, got a list/ },
  { name: 'bare number duration', yaml: 'llm: {budget: {call_timeout: 30}}', key: 'llm.budget.call_timeout', says: /Go duration/ },
  { name: 'bad duration unit', yaml: 'llm: {budget: {call_timeout: 30sec}}', key: 'llm.budget.call_timeout', says: /unknown unit/ },
  { name: 'zero call timeout', yaml: 'llm: {budget: {call_timeout: 0s}}', key: 'llm.budget.call_timeout', says: /must be positive/ },
  {
    name: 'negative tool timeout',
    yaml: 'llm: {budget: {tool_timeout: -1s}}',
    key: 'llm.budget.tool_timeout',
    says: /must not be negative/,
  },
  { name: 'negative max_tokens', yaml: 'llm: {budget: {max_tokens: -1}}', key: 'llm.budget.max_tokens', says: /must not be negative/ },
  { name: 'negative max_output_tokens', yaml: 'llm: {budget: {max_output_tokens: -5}}', key: 'llm.budget.max_output_tokens' },
  { name: 'negative max_iterations', yaml: 'llm: {budget: {max_iterations: -5}}', key: 'llm.budget.max_iterations' },
  {
    name: 'remote agent without a name',
    yaml: 'remote_agents: [{url: "https://peer.example/"}]',
    key: 'remote_agents[0].name',
    says: /A2A agent at url/,
  },
  { name: 'remote agent with a bad name', yaml: 'remote_agents: [{name: "a.b"}]', key: 'remote_agents[0].name', says: /letters, digits/ },
  {
    name: 'remote agent alias used twice',
    yaml: 'remote_agents: [{name: a, alias: x}, {name: b, alias: x}]',
    key: 'remote_agents[1].alias',
    says: /remote_agents\[0\] too/,
  },
  {
    name: 'remote agent alias too long',
    yaml: `remote_agents: [{name: ${'a'.repeat(60)}}]`,
    key: 'remote_agents[0].alias',
    says: /at most 64/,
  },
  {
    name: 'remote agent over plain http elsewhere',
    yaml: 'remote_agents: [{name: a, url: "http://peer.example/"}]',
    key: 'remote_agents[0].url',
    says: /not this machine/,
  },
  { name: 'remote agent url not a URL', yaml: 'remote_agents: [{name: a, url: "peer"}]', key: 'remote_agents[0].url', says: /not a URL/ },
  {
    name: 'remote agent headers over NATS',
    yaml: 'nats_context: lab\nremote_agents: [{name: a, headers: {Authorization: x}}]',
    key: 'remote_agents[0].headers',
    says: /only to an A2A peer/,
  },
  {
    name: 'remote agent bad header name',
    yaml: 'remote_agents: [{name: a, url: "https://p.example/", headers: {"bad header": x}}]',
    key: 'remote_agents[0].headers.bad header',
  },
  {
    name: 'remote agent zero timeout',
    yaml: 'remote_agents: [{name: a, timeout: 0s}]',
    key: 'remote_agents[0].timeout',
    says: /must be positive/,
  },
  {
    name: 'remote agent unknown key',
    yaml: 'remote_agents: [{name: a, header: {}}]',
    key: 'remote_agents[0].header',
    says: /did you mean remote_agents\[0\]\.headers/,
  },
  {
    name: 'remote agent confirm not a boolean',
    yaml: 'remote_agents: [{name: a, confirm: "yes"}]',
    key: 'remote_agents[0].confirm',
    says: /true or false/,
  },
  {
    name: 'NATS remote agent without nats_context',
    yaml: `${RUNNABLE}remote_agents: [{name: ops}]`,
    mode: 'run',
    key: 'nats_context',
    says: /remote_agents\[0\]/,
  },
  {
    name: 'health without a port',
    yaml: 'expose: {agent: {health: {address: 0.0.0.0}}}',
    key: 'expose.agent.health.port',
    says: /is required: the TCP port/,
  },
  {
    name: 'a2a_http without a port',
    yaml: 'expose: {agent: {a2a_http: {}}}',
    key: 'expose.agent.a2a_http.port',
    says: /is required: the TCP port/,
  },
  {
    name: 'a2a_http port out of range',
    yaml: 'expose: {agent: {a2a_http: {port: 70000}}}',
    key: 'expose.agent.a2a_http.port',
    says: /not a TCP port/,
  },
  {
    name: 'a2a_http off loopback without a token',
    yaml: 'expose: {agent: {a2a_http: {port: 8080, address: 0.0.0.0}}}',
    key: 'expose.agent.a2a_http.auth_token_env',
    says: /is required to listen on 0\.0\.0\.0/,
  },
  {
    name: 'a2a_http token given instead of its variable',
    yaml: 'expose: {agent: {a2a_http: {port: 8080, auth_token_env: "s3cr3t-value!"}}}',
    key: 'expose.agent.a2a_http.auth_token_env',
    says: /not an environment variable name/,
  },
  {
    name: 'a2a_http public_url not a URL',
    yaml: 'expose: {agent: {a2a_http: {port: 8080, public_url: "agent.example"}}}',
    key: 'expose.agent.a2a_http.public_url',
    says: /not a URL/,
  },
  {
    name: 'a2a_http public_url with credentials',
    yaml: 'expose: {agent: {a2a_http: {port: 8080, public_url: "https://u:p@agent.example/"}}}',
    key: 'expose.agent.a2a_http.public_url',
    says: /user name or password/,
  },
  {
    name: 'a2a_http zero question timeout',
    yaml: 'expose: {agent: {a2a_http: {port: 8080, question_timeout: 0s}}}',
    key: 'expose.agent.a2a_http.question_timeout',
    says: /must be positive/,
  },
  {
    name: 'a2a_http negative workers',
    yaml: 'expose: {agent: {a2a_http: {port: 8080, workers: -1}}}',
    key: 'expose.agent.a2a_http.workers',
    says: /-1 must be at least 1/,
  },
  {
    name: 'a2a_http zero workers',
    yaml: 'expose: {agent: {a2a_http: {port: 8080, workers: 0}}}',
    key: 'expose.agent.a2a_http.workers',
    says: /0 must be at least 1.*leave it out for 1/,
  },
  {
    name: 'jobs zero workers',
    yaml: 'expose: {agent: {jobs: {stream: q, workers: 0}}}',
    key: 'expose.agent.jobs.workers',
    says: /0 must be at least 1/,
  },
  {
    name: 'jobs negative workers',
    yaml: 'expose: {agent: {jobs: {stream: q, workers: -2}}}',
    key: 'expose.agent.jobs.workers',
    says: /-2 must be at least 1/,
  },
  {
    name: 'slack zero workers',
    yaml: 'expose: {agent: {slack: {workers: 0}}}',
    key: 'expose.agent.slack.workers',
    says: /0 must be at least 1/,
  },
  { name: 'a2a zero workers', yaml: 'expose: {agent: {a2a: {workers: 0}}}', key: 'expose.agent.a2a.workers', says: /0 must be at least 1/ },
  {
    name: 'health port out of range',
    yaml: 'expose: {agent: {health: {port: 70000}}}',
    key: 'expose.agent.health.port',
    says: /70000 is not a TCP port; use 1 to 65535/,
  },
  {
    name: 'misspelt health key',
    yaml: 'expose: {agent: {health: {prot: 8081}}}',
    key: 'expose.agent.health.prot',
    says: /did you mean expose\.agent\.health\.port/,
  },
  { name: 'thinking as a bare boolean', yaml: 'llm: {thinking: true}', key: 'llm.thinking', says: /a mapping/ },
  { name: 'thinking without enabled', yaml: 'llm: {thinking: {}}', key: 'llm.thinking.enabled', says: /required/ },
  { name: 'unknown PII mode', yaml: 'harness: {pii: {mode: mask}}', key: 'harness.pii.mode', says: /off, redact or reject/ },
  { name: 'bad identity characters', yaml: 'identity: my agent', key: 'identity', says: /letters, digits/ },
  {
    name: 'identity from an application name with a dot',
    yaml: 'application_path: /usr/bin/nats.exe',
    key: 'identity',
    says: /taken from the application name/,
  },
  { name: 'global flags without an application', yaml: 'global_flags: [context]', key: 'global_flags', says: /application_path/ },
  { name: 'remote host without a name', yaml: 'remote_tools: [{alias: x}]', key: 'remote_tools[0].name', says: /required/ },
  { name: 'remote host with a bad name', yaml: 'remote_tools: [{name: "a.b"}]', key: 'remote_tools[0].name' },
  { name: 'remote host with a bad alias', yaml: 'remote_tools: [{name: a, alias: "x y"}]', key: 'remote_tools[0].alias' },
  {
    name: 'tag exclude on a remote host',
    yaml: 'remote_tools: [{name: a, exclude: {tags: [t]}}]',
    key: 'remote_tools[0].exclude.tags',
    says: /exclude by tool name/,
  },
  { name: 'bad include regex', yaml: 'include: {tools: ["("]}', key: 'include.tools[0]', says: /regular expression/ },
  { name: 'MCP client without a name', yaml: 'mcp_clients: [{command: x}]', key: 'mcp_clients[0].name' },
  {
    name: 'MCP client name reused',
    yaml: 'mcp_clients: [{name: a, command: x}, {name: a, command: y}]',
    key: 'mcp_clients[1].name',
    says: /earlier entry/,
  },
  { name: 'MCP client with neither command nor url', yaml: 'mcp_clients: [{name: a}]', key: 'mcp_clients[0].command' },
  {
    name: 'MCP client with both command and url',
    yaml: 'mcp_clients: [{name: a, command: x, url: "http://127.0.0.1:1"}]',
    key: 'mcp_clients[0].url',
  },
  {
    name: 'MCP client with an unknown transport',
    yaml: 'mcp_clients: [{name: a, transport: websocket, url: "http://x"}]',
    key: 'mcp_clients[0].transport',
    says: /stdio.*http.*streamable-http or sse/,
  },
  { name: 'MCP sse client without a url', yaml: 'mcp_clients: [{name: a, transport: sse}]', key: 'mcp_clients[0].url', says: /sse server/ },
  {
    name: 'MCP client with userinfo and an Authorization header',
    yaml: 'mcp_clients: [{name: a, url: "https://u:p@x/mcp", headers: {Authorization: b}}]',
    key: 'mcp_clients[0].url',
    says: /keep one of them/,
  },
  {
    name: 'MCP client with oauth and userinfo',
    yaml: 'mcp_clients: [{name: a, url: "https://u:p@x/mcp", oauth: {}}]',
    key: 'mcp_clients[0].url',
    says: /OAuth supplies/,
  },
  {
    name: 'MCP client with oauth and an Authorization header',
    yaml: 'mcp_clients: [{name: a, url: "https://x/mcp", headers: {authorization: b}, oauth: {}}]',
    key: 'mcp_clients[0].headers.Authorization',
  },
  {
    name: 'MCP stdio client with oauth',
    yaml: 'mcp_clients: [{name: a, command: x, oauth: {}}]',
    key: 'mcp_clients[0].oauth',
    says: /only to an http server/,
  },
  {
    name: 'MCP oauth grant typo',
    yaml: 'mcp_clients: [{name: a, url: "https://x/mcp", oauth: {grant: password}}]',
    key: 'mcp_clients[0].oauth.grant',
    says: /authorization_code.*client_credentials/,
  },
  {
    name: 'MCP oauth client credentials without a secret',
    yaml: 'mcp_clients: [{name: a, url: "https://x/mcp", oauth: {grant: client_credentials, client_id: c}}]',
    key: 'mcp_clients[0].oauth.client_secret_env',
  },
  {
    name: 'MCP oauth client credentials without a client',
    yaml: 'mcp_clients: [{name: a, url: "https://x/mcp", oauth: {grant: client_credentials, client_secret_env: S}}]',
    key: 'mcp_clients[0].oauth.client_id',
  },
  {
    name: 'MCP oauth secret written in place of its variable',
    yaml: 'mcp_clients: [{name: a, url: "https://x/mcp", oauth: {client_id: c, client_secret_env: "s3cr3t-value!"}}]',
    key: 'mcp_clients[0].oauth.client_secret_env',
    says: /never the secret/,
  },
  {
    name: 'MCP oauth grant typo for cross-app access',
    yaml: 'mcp_clients: [{name: a, url: "https://x/mcp", oauth: {grant: cross_app}}]',
    key: 'mcp_clients[0].oauth.grant',
    says: /cross_app_access/,
  },
  {
    name: 'MCP oauth secret and private key together',
    yaml: 'mcp_clients: [{name: a, url: "https://x/mcp", oauth: {grant: client_credentials, client_id: c, client_secret_env: S, private_key_env: K}}]',
    key: 'mcp_clients[0].oauth.client_secret_env',
    says: /keep client_secret_env .* or the private key/,
  },
  {
    name: 'MCP oauth private key in a variable and a file',
    yaml: 'mcp_clients: [{name: a, url: "https://x/mcp", oauth: {grant: client_credentials, client_id: c, private_key_env: K, private_key_file: k.pem}}]',
    key: 'mcp_clients[0].oauth.private_key_file',
    says: /keep one/,
  },
  {
    name: 'MCP oauth private key without a client',
    yaml: 'mcp_clients: [{name: a, url: "https://x/mcp", oauth: {grant: client_credentials, private_key_file: k.pem}}]',
    key: 'mcp_clients[0].oauth.client_id',
    says: /with a private key/,
  },
  {
    name: 'MCP oauth private key written in place of its variable',
    yaml: 'mcp_clients: [{name: a, url: "https://x/mcp", oauth: {grant: client_credentials, client_id: c, private_key_env: "-----BEGIN PRIVATE KEY-----"}}]',
    key: 'mcp_clients[0].oauth.private_key_env',
    says: /never the secret/,
  },
  {
    name: 'MCP oauth signing algorithm typo',
    yaml: 'mcp_clients: [{name: a, url: "https://x/mcp", oauth: {grant: client_credentials, client_id: c, private_key_env: K, signing_algorithm: ES255}}]',
    key: 'mcp_clients[0].oauth.signing_algorithm',
    says: /ES256/,
  },
  {
    name: 'MCP oauth symmetric signing algorithm',
    yaml: 'mcp_clients: [{name: a, url: "https://x/mcp", oauth: {grant: client_credentials, client_id: c, private_key_env: K, signing_algorithm: HS256}}]',
    key: 'mcp_clients[0].oauth.signing_algorithm',
    says: /not accepted/,
  },
  {
    name: 'MCP oauth signing algorithm without a key',
    yaml: 'mcp_clients: [{name: a, url: "https://x/mcp", oauth: {grant: client_credentials, client_id: c, client_secret_env: S, signing_algorithm: ES256}}]',
    key: 'mcp_clients[0].oauth.signing_algorithm',
    says: /private_key_env or private_key_file/,
  },
  {
    name: 'MCP oauth key id without a key',
    yaml: 'mcp_clients: [{name: a, url: "https://x/mcp", oauth: {client_id: c, key_id: k1}}]',
    key: 'mcp_clients[0].oauth.key_id',
  },
  {
    name: 'MCP oauth misspelt private key key',
    yaml: 'mcp_clients: [{name: a, url: "https://x/mcp", oauth: {grant: client_credentials, client_id: c, private_key: K}}]',
    key: 'mcp_clients[0].oauth.private_key',
  },
  {
    name: 'MCP oauth cross-app access without an identity provider',
    yaml: 'mcp_clients: [{name: a, url: "https://x/mcp", oauth: {grant: cross_app_access, client_id: c, client_secret_env: S}}]',
    key: 'mcp_clients[0].oauth.idp',
    says: /required for cross_app_access/,
  },
  {
    name: 'MCP oauth identity provider with another grant',
    yaml: 'mcp_clients: [{name: a, url: "https://x/mcp", oauth: {grant: client_credentials, client_id: c, client_secret_env: S, idp: {token_endpoint: "https://idp/t", id_token_env: T}}}]',
    key: 'mcp_clients[0].oauth.idp',
    says: /only with grant: cross_app_access/,
  },
  {
    name: 'MCP oauth identity provider without a token endpoint',
    yaml: 'mcp_clients: [{name: a, url: "https://x/mcp", oauth: {grant: cross_app_access, client_id: c, client_secret_env: S, idp: {id_token_env: T}}}]',
    key: 'mcp_clients[0].oauth.idp.token_endpoint',
    says: /required/,
  },
  {
    name: 'MCP oauth identity provider over plain http',
    yaml: 'mcp_clients: [{name: a, url: "https://x/mcp", oauth: {grant: cross_app_access, client_id: c, client_secret_env: S, idp: {token_endpoint: "http://idp.example.com/t", id_token_env: T}}}]',
    key: 'mcp_clients[0].oauth.idp.token_endpoint',
    says: /https/,
  },
  {
    name: 'MCP oauth identity provider endpoint that is no URL',
    yaml: 'mcp_clients: [{name: a, url: "https://x/mcp", oauth: {grant: cross_app_access, client_id: c, client_secret_env: S, idp: {token_endpoint: idp-token, id_token_env: T}}}]',
    key: 'mcp_clients[0].oauth.idp.token_endpoint',
    says: /not a URL/,
  },
  {
    name: 'MCP oauth identity provider without an ID token',
    yaml: 'mcp_clients: [{name: a, url: "https://x/mcp", oauth: {grant: cross_app_access, client_id: c, client_secret_env: S, idp: {token_endpoint: "https://idp/t"}}}]',
    key: 'mcp_clients[0].oauth.idp.id_token_env',
    says: /id_token_file/,
  },
  {
    name: 'MCP oauth ID token in a variable and a file',
    yaml: 'mcp_clients: [{name: a, url: "https://x/mcp", oauth: {grant: cross_app_access, client_id: c, client_secret_env: S, idp: {token_endpoint: "https://idp/t", id_token_env: T, id_token_file: t.jwt}}}]',
    key: 'mcp_clients[0].oauth.idp.id_token_file',
    says: /keep one/,
  },
  {
    name: 'MCP oauth ID token written in place of its variable',
    yaml: 'mcp_clients: [{name: a, url: "https://x/mcp", oauth: {grant: cross_app_access, client_id: c, client_secret_env: S, idp: {token_endpoint: "https://idp/t", id_token_env: "eyJhbGciOi.x.y"}}}]',
    key: 'mcp_clients[0].oauth.idp.id_token_env',
    says: /never the secret/,
  },
  {
    name: 'MCP oauth identity provider secret without its client',
    yaml: 'mcp_clients: [{name: a, url: "https://x/mcp", oauth: {grant: cross_app_access, client_id: c, client_secret_env: S, idp: {token_endpoint: "https://idp/t", id_token_env: T, client_secret_env: IS}}}]',
    key: 'mcp_clients[0].oauth.idp.client_id',
  },
  {
    name: 'MCP oauth cross-app access without client authentication',
    yaml: 'mcp_clients: [{name: a, url: "https://x/mcp", oauth: {grant: cross_app_access, client_id: c, idp: {token_endpoint: "https://idp/t", id_token_env: T}}}]',
    key: 'mcp_clients[0].oauth.client_secret_env',
    says: /cross_app_access grant/,
  },
  {
    name: 'MCP oauth misspelt identity provider key',
    yaml: 'mcp_clients: [{name: a, url: "https://x/mcp", oauth: {grant: cross_app_access, client_id: c, client_secret_env: S, idp: {token_endpoint: "https://idp/t", id_token: T}}}]',
    key: 'mcp_clients[0].oauth.idp.id_token',
  },
  {
    name: 'MCP oauth redirect port out of range',
    yaml: 'mcp_clients: [{name: a, url: "https://x/mcp", oauth: {redirect_port: 70000}}]',
    key: 'mcp_clients[0].oauth.redirect_port',
  },
  {
    name: 'MCP oauth client metadata over http',
    yaml: 'mcp_clients: [{name: a, url: "https://x/mcp", oauth: {client_metadata_url: "http://x/client.json"}}]',
    key: 'mcp_clients[0].oauth.client_metadata_url',
    says: /https/,
  },
  {
    name: 'MCP http client with a non-http url',
    yaml: 'mcp_clients: [{name: a, transport: http, url: "ftp://x"}]',
    key: 'mcp_clients[0].url',
  },
  {
    name: 'MCP client with a dotted prefix',
    yaml: 'mcp_clients: [{name: a, command: x, prefix: "gh.io"}]',
    key: 'mcp_clients[0].prefix',
    says: /1 to 32 letters, digits/,
  },
  {
    name: 'MCP client with a prefix past 32 characters',
    yaml: `mcp_clients: [{name: a, command: x, prefix: ${'p'.repeat(33)}}]`,
    key: 'mcp_clients[0].prefix',
  },
  {
    name: 'MCP client with a zero startup timeout',
    yaml: 'mcp_clients: [{name: a, command: x, startup_timeout: 0}]',
    key: 'mcp_clients[0].startup_timeout',
  },
  {
    name: 'MCP client max_output in megabytes',
    yaml: 'mcp_clients: [{name: a, command: x, max_output: 2MB}]',
    key: 'mcp_clients[0].max_output',
    says: /KiB, MiB or GiB/,
  },
  {
    name: 'MCP client max_output too small',
    yaml: 'mcp_clients: [{name: a, command: x, max_output: 100}]',
    key: 'mcp_clients[0].max_output',
    says: /1KiB to 16MiB/,
  },
  {
    name: 'MCP client max_output too large',
    yaml: 'mcp_clients: [{name: a, command: x, max_output: 64MiB}]',
    key: 'mcp_clients[0].max_output',
    says: /1KiB to 16MiB/,
  },
  {
    name: 'MCP client confirm typo',
    yaml: 'mcp_clients: [{name: a, command: x, confirm: sometimes}]',
    key: 'mcp_clients[0].confirm',
    says: /auto .*always, never, or a list of patterns/,
  },
  {
    name: 'MCP client confirm empty list',
    yaml: 'mcp_clients: [{name: a, command: x, confirm: []}]',
    key: 'mcp_clients[0].confirm',
    says: /at least one pattern/,
  },
  {
    name: 'MCP client confirm bad pattern',
    yaml: 'mcp_clients: [{name: a, command: x, confirm: ["^ok", "("]}]',
    key: 'mcp_clients[0].confirm[1]',
    says: /regular expression/,
  },
  {
    name: 'confirm_over_mcp typo',
    yaml: 'expose: {agent: {mcp: {confirm_over_mcp: sometimes}}}',
    key: 'expose.agent.mcp.confirm_over_mcp',
    says: /auto, always or never/,
  },
  {
    name: 'memory built-in over MCP',
    yaml: 'expose: {agent: {mcp: {builtins: [memory_read]}}}',
    key: 'expose.agent.mcp.builtins',
    says: /only knowledge_search and knowledge_enumerate/,
  },
  {
    name: 'knowledge built-in over MCP without knowledge',
    yaml: 'expose: {agent: {mcp: {builtins: [knowledge_search]}}}',
    key: 'expose.agent.mcp.builtins',
    says: /harness\.knowledge\.enabled/,
  },
  {
    name: 'MCP token written in place of its variable',
    yaml: 'expose: {agent: {mcp: {auth_token_env: "9f2c-secret-token"}}}',
    key: 'expose.agent.mcp.auth_token_env',
    says: /never the token/,
  },
  {
    name: 'negative MCP concurrency',
    yaml: 'expose: {agent: {mcp: {max_concurrent_tools: -1}}}',
    key: 'expose.agent.mcp.max_concurrent_tools',
    says: /negative/,
  },
  {
    name: 'MCP concurrency too high',
    yaml: 'expose: {agent: {mcp: {max_concurrent_tools: 5000}}}',
    key: 'expose.agent.mcp.max_concurrent_tools',
    says: /1024/,
  },
  { name: 'negative MCP tool timeout', yaml: 'expose: {agent: {mcp: {tool_timeout: -2s}}}', key: 'expose.agent.mcp.tool_timeout' },
  { name: 'MCP port out of range', yaml: 'expose: {agent: {mcp: {port: 70000}}}', key: 'expose.agent.mcp.port' },
  {
    name: 'negative a2a concurrency',
    yaml: 'expose: {agent: {a2a: {max_concurrent_tools: -3}}}',
    key: 'expose.agent.a2a.max_concurrent_tools',
  },
  {
    name: 'embeddings without base_url',
    yaml: 'harness: {knowledge: {enabled: true, embeddings: {model: e}}}',
    key: 'harness.knowledge.embeddings.base_url',
  },
  {
    name: 'embeddings without model',
    yaml: 'harness: {knowledge: {embeddings: {base_url: "http://127.0.0.1:1"}}}',
    key: 'harness.knowledge.embeddings.model',
  },
  {
    name: 'embeddings over plain http to another host',
    yaml: 'harness: {knowledge: {embeddings: {base_url: "http://embed.example.com", model: e}}}',
    key: 'harness.knowledge.embeddings.base_url',
    says: /use https/,
  },
  {
    name: 'embeddings over plain http to a name that starts like loopback',
    yaml: 'harness: {knowledge: {embeddings: {base_url: "http://127.0.0.1.nip.io/v1", model: e}}}',
    key: 'harness.knowledge.embeddings.base_url',
    says: /use https/,
  },
  {
    name: 'embeddings over plain http to a 127-prefixed name',
    yaml: 'harness: {knowledge: {embeddings: {base_url: "http://127.attacker.example/v1", model: e}}}',
    key: 'harness.knowledge.embeddings.base_url',
    says: /use https/,
  },
  {
    name: 'embeddings url with credentials',
    yaml: 'harness: {knowledge: {embeddings: {base_url: "https://u:p@embed.example.com", model: e}}}',
    key: 'harness.knowledge.embeddings.base_url',
    says: /user name or password/,
  },
  {
    name: 'embeddings zero timeout',
    yaml: 'harness: {knowledge: {embeddings: {base_url: "http://127.0.0.1:1", model: e, timeout: 0s}}}',
    key: 'harness.knowledge.embeddings.timeout',
  },
  {
    name: 'knowledge extensions empty',
    yaml: 'harness: {knowledge: {extensions: []}}',
    key: 'harness.knowledge.extensions',
    says: /nothing would be indexed/,
  },
  {
    name: 'knowledge extension that is a glob',
    yaml: 'harness: {knowledge: {extensions: ["*.md"]}}',
    key: 'harness.knowledge.extensions[0]',
    says: /not a file-name ending/,
  },
  {
    name: 'bad citation pattern',
    yaml: 'harness: {knowledge: {citations: [{pattern: "[", replace: x}]}}',
    key: 'harness.knowledge.citations[0].pattern',
  },
  {
    name: 'citation without replace',
    yaml: 'harness: {knowledge: {citations: [{pattern: x}]}}',
    key: 'harness.knowledge.citations[0].replace',
    says: /required/,
  },
  { name: 'sample ratio above one', yaml: 'telemetry: {sample_ratio: 1.5}', key: 'telemetry.sample_ratio' },
  {
    name: 'telemetry plain http with capture on',
    yaml: 'telemetry: {enabled: true, capture_content: true, endpoint: "http://collector.example.com:4318"}',
    key: 'telemetry.endpoint',
  },
  { name: 'telemetry protocol typo', yaml: 'telemetry: {protocol: http}', key: 'telemetry.protocol' },
  { name: 'run without a model', yaml: 'system_prompt: p', mode: 'run', key: 'llm.model', says: /required to run/ },
  { name: 'run without a prompt', yaml: 'llm: {model: m}', mode: 'run', key: 'system_prompt' },
  { name: 'run with remote tools and no NATS context', yaml: `${RUNNABLE}remote_tools: [{name: peer}]`, mode: 'run', key: 'nats_context' },
  {
    name: 'run with JetStream memory and no NATS context',
    yaml: `${RUNNABLE}harness: {memory: {enabled: true, backend: jetstream}}`,
    mode: 'run',
    key: 'nats_context',
    says: /harness\.memory\.backend/,
  },
  {
    name: 'run with JetStream sessions and no NATS context',
    yaml: `${RUNNABLE}harness: {sessions: {backend: jetstream}}`,
    mode: 'run',
    key: 'nats_context',
  },
  { name: 'mcp without the expose block', yaml: 'identity: a', mode: 'mcp', key: 'expose.agent.mcp', says: /add/ },
  { name: 'knowledge command without knowledge', yaml: 'identity: a', mode: 'knowledge', key: 'harness.knowledge.enabled' },
  {
    name: 'serve without a named identity',
    yaml: 'application_path: /bin/x\nnats_context: c\nexpose: {agent: {a2a: {serve_tools: true}}}',
    mode: 'serve',
    key: 'identity',
  },
  { name: 'serve with no endpoint', yaml: 'identity: a', mode: 'serve', key: 'expose.agent', says: /enables no endpoint/ },
  {
    name: 'serve tools without an application',
    yaml: 'identity: a\nnats_context: c\nexpose: {agent: {a2a: {serve_tools: true}}}',
    mode: 'serve',
    key: 'application_path',
  },
  {
    name: 'serve over NATS without a context',
    yaml: 'identity: a\napplication_path: /bin/x\nexpose: {agent: {a2a: {serve_tools: true}}}',
    mode: 'serve',
    key: 'nats_context',
  },
  {
    name: 'serve prompts without a model',
    yaml: 'identity: a\nnats_context: c\nexpose: {agent: {a2a: {prompts: true}}}',
    mode: 'serve',
    key: 'llm.model',
  },
  {
    name: 'jobs without a stream',
    yaml: `identity: a\nnats_context: c\n${RUNNABLE}expose: {agent: {jobs: {workers: 2}}}`,
    mode: 'serve',
    key: 'expose.agent.jobs.stream',
  },
  {
    name: 'misspelt sandbox key',
    yaml: 'harness: {sandbox: {enable: true}}',
    key: 'harness.sandbox.enable',
    says: /did you mean harness\.sandbox\.enabled/,
  },
  { name: 'unknown sandbox limit', yaml: 'harness: {sandbox: {limits: {memory: 1}}}', key: 'harness.sandbox.limits.memory' },
  {
    name: 'sandbox writable as a string',
    yaml: 'harness: {sandbox: {writable: /tmp/out}}',
    key: 'harness.sandbox.writable',
    says: /a list/,
  },
  {
    name: 'empty sandbox writable path',
    yaml: 'harness: {sandbox: {writable: ["  "]}}',
    key: 'harness.sandbox.writable[0]',
    says: /empty path/,
  },
  {
    name: "another user's home in sandbox hide",
    yaml: 'harness: {sandbox: {hide: ["~bob/.ssh"]}}',
    key: 'harness.sandbox.hide[0]',
    says: /another user's home/,
  },
  {
    name: 'sandbox address space too small',
    yaml: 'harness: {sandbox: {limits: {address_space: 1KiB}}}',
    key: 'harness.sandbox.limits.address_space',
    says: /out of range/,
  },
  {
    name: 'negative sandbox cpu seconds',
    yaml: 'harness: {sandbox: {limits: {cpu_seconds: -1}}}',
    key: 'harness.sandbox.limits.cpu_seconds',
    says: /positive/,
  },
  { name: 'sandbox grant without tools', yaml: 'harness: {sandbox: {tools: [{network: true}]}}', key: 'harness.sandbox.tools[0].tools' },
  {
    name: 'sandbox grant with a bad pattern',
    yaml: 'harness: {sandbox: {tools: [{tools: ["("], network: true}]}}',
    key: 'harness.sandbox.tools[0].tools[0]',
    says: /regular expression/,
  },
  {
    name: 'sandbox grant granting nothing',
    yaml: 'harness: {sandbox: {tools: [{tools: [x]}]}}',
    key: 'harness.sandbox.tools[0]',
    says: /grants nothing/,
  },
  {
    name: 'sandbox grant with an unknown key',
    yaml: 'harness: {sandbox: {tools: [{tools: [x], tags: [t]}]}}',
    key: 'harness.sandbox.tools[0].tags',
  },
  {
    name: 'sandbox on an http MCP server',
    yaml: 'mcp_clients: [{name: a, url: "https://mcp.example.com", sandbox: true}]',
    key: 'mcp_clients[0].sandbox',
    says: /stdio servers only/,
  },
  {
    name: 'MCP network without a sandbox',
    yaml: 'mcp_clients: [{name: a, command: x, network: true}]',
    key: 'mcp_clients[0].network',
    says: /no effect while the server runs unsandboxed/,
  },
];

describe('bad configurations', () => {
  it('has at least forty cases', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(40);
  });

  it.each(CASES)('$name', ({ yaml, mode, key, says }) => {
    let caught: unknown;
    try {
      parseConfigForMode({ text: yaml, name: 'agent.yaml' }, mode ?? 'info');
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const err = caught as ConfigError;
    if (key !== '') {
      expect(err.issues.map((i) => i.key)).toContain(key);
      expect(err.message).toContain(`${key}:`);
    }
    if (says !== undefined) expect(err.message).toMatch(says);
  });
});

describe('several problems in one file', () => {
  it('lists every one in the order they appear in the file', () => {
    const yaml =
      'identity: x\nsystem_promt: hi\nllm:\n  model: m\n  budgett: {}\nharness:\n  knowledge:\n    enabled: yes\n    paths: docs\n';
    let caught: unknown;
    try {
      parseConfigForMode({ text: yaml, name: 'agent.yaml' }, 'info');
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).issues.map((i) => i.key)).toEqual([
      'system_promt',
      'llm.budgett',
      'harness.knowledge.enabled',
      'harness.knowledge.paths',
    ]);
  });
});
