import { ConfigError } from './errors.js';
import type { ConfigIssue } from './errors.js';
import { mcpOAuthIssues } from './mcp-oauth.js';
import { remoteAgentIssues, remoteAgentRunIssues } from './remote-agents.js';
import type { Config, McpClientConfig } from './types.js';

/** The commands that read agent.yaml, each validating what it needs. */
export const MODES = ['run', 'serve', 'mcp', 'info', 'knowledge', 'session', 'discover'] as const;
export type Mode = (typeof MODES)[number];

const NAME = /^[A-Za-z0-9_-]+$/;
/** The longest `mcp_clients[].prefix`: room is left for the tool's own name within the 64 a model API allows. */
const MAX_PREFIX = 32;

/**
 * Stage three: the checks every command pays for getting wrong, then the ones the calling command
 * needs. `info` runs only the always-on checks so it can describe a configuration it could not run.
 * All problems found are reported together.
 */
export function validateForMode(config: Config, mode: Mode): void {
  const issues: ConfigIssue[] = [...alwaysIssues(config)];
  switch (mode) {
    case 'run':
      issues.push(...runIssues(config));
      break;
    case 'serve':
      issues.push(...serveIssues(config));
      break;
    case 'mcp':
      if (config.expose.mcp === undefined) {
        issues.push({
          code: 'missing',
          key: 'expose.agent.mcp',
          message: `is required to serve tools over MCP; add "expose: {agent: {mcp: {}}}" to ${config.source} (optionally with a port)`,
        });
      }
      break;
    case 'knowledge':
      if (!config.harness.knowledge.enabled) {
        issues.push({
          code: 'missing',
          key: 'harness.knowledge.enabled',
          message: `knowledge is not enabled in ${config.source}; add a harness.knowledge block with "enabled: true"`,
        });
      }
      break;
    case 'info':
    case 'session':
    case 'discover':
      break;
    default: {
      const never: never = mode;
      throw new TypeError(`unknown mode ${String(never)}`);
    }
  }
  if (issues.length > 0) throw new ConfigError(issues);
}

function alwaysIssues(config: Config): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  if (!NAME.test(config.identity)) {
    const from =
      config.identitySource === 'application' ? ` (taken from the application name ${JSON.stringify(config.applicationPath)})` : '';
    out.push({
      code: 'value',
      key: 'identity',
      message: `"${config.identity}"${from} is invalid: use only letters, digits, '-' and '_' (it names NATS subjects and queue groups); set an explicit identity`,
    });
  }
  if (config.globalFlags.length > 0 && config.applicationPath === undefined) {
    out.push({
      code: 'value',
      key: 'global_flags',
      message:
        'is set but application_path is not: global flags belong to the wrapped application; remove global_flags or set application_path',
    });
  }
  config.remoteTools.forEach((host, i) => {
    const key = `remote_tools[${i}]`;
    if (host.name === '') {
      out.push({ code: 'missing', key: `${key}.name`, message: 'is required: the identity of the agent whose tools to import' });
      return;
    }
    if (!NAME.test(host.name)) {
      out.push({
        code: 'value',
        key: `${key}.name`,
        message: `"${host.name}" is invalid: use only letters, digits, '-' and '_' (it names NATS subjects)`,
      });
    }
    if (!NAME.test(host.alias)) {
      out.push({
        code: 'value',
        key: `${key}.alias`,
        message: `"${host.alias}" is invalid: use only letters, digits, '-' and '_' (it prefixes imported tool names)`,
      });
    }
    if (host.exclude.tags.length > 0) {
      out.push({
        code: 'value',
        key: `${key}.exclude.tags`,
        message:
          'cannot be honoured: discovery carries no tags, so a tool excluded by tag would be imported anyway; exclude by tool name with exclude.tools',
      });
    }
  });
  out.push(...remoteAgentIssues(config));
  const names = new Set<string>();
  config.mcpClients.forEach((client, i) => {
    const key = `mcp_clients[${i}]`;
    if (client.name === '') {
      out.push({
        code: 'missing',
        key: `${key}.name`,
        message: 'is required: a short name for the server, used in messages and tool prefixes',
      });
    } else if (!NAME.test(client.name)) {
      out.push({ code: 'value', key: `${key}.name`, message: `"${client.name}" is invalid: use only letters, digits, '-' and '_'` });
    } else if (names.has(client.name)) {
      out.push({
        code: 'value',
        key: `${key}.name`,
        message: `"${client.name}" is used by an earlier entry; give each server its own name`,
      });
    }
    names.add(client.name);
    if (client.prefix !== undefined && (!NAME.test(client.prefix) || client.prefix.length > MAX_PREFIX)) {
      out.push({
        code: 'value',
        key: `${key}.prefix`,
        message: `"${client.prefix}" is invalid: use 1 to ${MAX_PREFIX} letters, digits, '-' and '_' (tools are named <prefix>_<tool>, and a model API accepts nothing else)`,
      });
    }
    if (client.transport === 'stdio') {
      if (client.command === undefined) {
        out.push({
          code: 'missing',
          key: `${key}.command`,
          message: 'is required for a stdio server: the program to start (arguments go in args)',
        });
      }
      if (client.url !== undefined) {
        out.push({
          code: 'value',
          key: `${key}.url`,
          message: 'does not apply to a stdio server; remove url, or remove command to connect over http',
        });
      }
      if (Object.keys(client.headers).length > 0) {
        out.push({
          code: 'value',
          key: `${key}.headers`,
          message: 'apply only to an http server; remove them, or use env for a stdio server',
        });
      }
      if (client.oauth !== undefined) {
        out.push({
          code: 'value',
          key: `${key}.oauth`,
          message: 'applies only to an http server; remove it, or give the stdio server its credential in env',
        });
      }
    } else {
      if (client.url === undefined) {
        out.push({ code: 'missing', key: `${key}.url`, message: `is required for an ${client.transport} server: its endpoint URL` });
      } else if (!/^https?:\/\//i.test(client.url)) {
        out.push({ code: 'value', key: `${key}.url`, message: 'must start with http:// or https://' });
      }
      out.push(...httpAuthIssues(client, key));
      if (client.command !== undefined) {
        out.push({
          code: 'value',
          key: `${key}.command`,
          message: 'does not apply to an http server; remove command, or remove url to start a stdio server',
        });
      }
      if (client.args.length > 0 || Object.keys(client.env).length > 0) {
        out.push({ code: 'value', key: `${key}.args`, message: 'args and env apply only to a stdio server; remove them' });
      }
    }
  });
  return out;
}

/** Whether the written URL carries `user:pass@`; `${VAR}` references parse as ordinary userinfo text. */
function hasUserinfo(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.username !== '' || parsed.password !== '';
  } catch {
    return false;
  }
}

/** One way to authenticate to an http server at a time, and an `oauth` block that can work. */
function httpAuthIssues(m: McpClientConfig, key: string): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  const userinfo = m.url !== undefined && hasUserinfo(m.url);
  const authorizationHeader = Object.keys(m.headers).some((h) => h.toLowerCase() === 'authorization');
  if (userinfo && authorizationHeader) {
    out.push({
      code: 'value',
      key: `${key}.url`,
      message: 'carries user:pass@ (sent as Basic authorization) and headers sets Authorization too; keep one of them',
    });
  }
  const o = m.oauth;
  if (o === undefined) return out;
  if (userinfo)
    out.push({
      code: 'value',
      key: `${key}.url`,
      message: 'carries user:pass@ while oauth is set; remove the userinfo, OAuth supplies the authorization',
    });
  if (authorizationHeader)
    out.push({
      code: 'value',
      key: `${key}.headers.Authorization`,
      message: 'cannot be combined with oauth, which supplies the Authorization header; remove one of them',
    });
  out.push(...mcpOAuthIssues(o, `${key}.oauth`));
  return out;
}

function runIssues(c: Config): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  if (c.llm.model === '') {
    out.push({ code: 'missing', key: 'llm.model', message: 'is required to run an agent: the model id, e.g. claude-sonnet-4-6' });
  }
  if (c.systemPrompt.trim() === '' && c.expose.mcp === undefined) {
    out.push({
      code: 'missing',
      key: 'system_prompt',
      message: 'is required to run an agent: say what the agent is for and how it should use its tools',
    });
  }
  if (c.remoteTools.length > 0 && c.natsContext === undefined) {
    out.push({
      code: 'missing',
      key: 'nats_context',
      message: 'is required when remote_tools is set: the NATS context to reach the peers through',
    });
  }
  out.push(...remoteAgentRunIssues(c));
  out.push(...natsBackendIssues(c));
  return out;
}

function serveIssues(config: Config): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  const a2a = config.expose.a2a;
  if (config.identitySource !== 'explicit') {
    out.push({
      code: 'missing',
      key: 'identity',
      message: 'is required to serve: peers and queues address this agent by it; set an explicit identity',
    });
  }
  const endpoints =
    a2a.serveTools ||
    a2a.prompts ||
    config.expose.jobs !== undefined ||
    config.expose.slack !== undefined ||
    config.expose.a2aHttp !== undefined;
  if (!endpoints) {
    out.push({
      code: 'missing',
      key: 'expose.agent',
      message:
        'enables no endpoint to serve: set expose.agent.a2a.serve_tools or expose.agent.a2a.prompts, or add expose.agent.jobs, expose.agent.slack or expose.agent.a2a_http',
    });
  }
  if (a2a.serveTools && config.applicationPath === undefined) {
    out.push({
      code: 'missing',
      key: 'application_path',
      message: 'is required with expose.agent.a2a.serve_tools: only application commands are served to peers',
    });
  }
  const overNats = a2a.serveTools || a2a.prompts || config.expose.jobs !== undefined || config.remoteTools.length > 0;
  if (overNats && config.natsContext === undefined) {
    out.push({
      code: 'missing',
      key: 'nats_context',
      message: 'is required to serve over NATS: the context naming the server and credentials',
    });
  }
  const runsModel =
    a2a.prompts || config.expose.jobs !== undefined || config.expose.slack !== undefined || config.expose.a2aHttp !== undefined;
  if (runsModel && config.llm.model === '') {
    out.push({
      code: 'missing',
      key: 'llm.model',
      message: 'is required to serve prompts, jobs, slack or a2a_http: those endpoints run the agent loop',
    });
  }
  if (config.expose.jobs !== undefined && config.expose.jobs.stream === '') {
    out.push({ code: 'missing', key: 'expose.agent.jobs.stream', message: 'is required: the JetStream stream holding the work queue' });
  }
  if (runsModel) out.push(...remoteAgentRunIssues(config));
  if (config.expose.slack !== undefined && config.expose.slack.channels.length === 0) {
    out.push({ code: 'missing', key: 'expose.agent.slack.channels', message: 'is required: the Slack channel ids the agent answers in' });
  }
  out.push(...natsBackendIssues(config));
  return out;
}

function natsBackendIssues(c: Config): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  if (c.harness.memory.enabled && c.harness.memory.backend === 'jetstream' && c.natsContext === undefined) {
    out.push({ code: 'missing', key: 'nats_context', message: 'is required by harness.memory.backend: jetstream' });
  }
  if (c.harness.sessions.backend === 'jetstream' && c.natsContext === undefined) {
    out.push({ code: 'missing', key: 'nats_context', message: 'is required by harness.sessions.backend: jetstream' });
  }
  return out;
}
