/**
 * `remote_agents`: peers a whole task is handed to. Each entry becomes one tool,
 * `delegate_<alias>`, that reaches the peer over NATS (its identity) or over the A2A standard on
 * HTTP (`url`). Prepared here with its defaults; the checks every command pays for are
 * `remoteAgentIssues`.
 */
import { ConfigError } from './errors.js';
import type { ConfigIssue } from './errors.js';
import { parseDuration } from './normalize.js';
import type { RawConfig } from './schema.js';
import { checkServiceUrl } from './service-url.js';
import type { Config, RemoteAgentConfig } from './types.js';

/** How long one delegation may take when the entry says nothing: a whole task, questions included. */
export const DEFAULT_DELEGATE_TIMEOUT = '10m';

/** The prefix of every delegation tool's name. */
export const DELEGATE_TOOL_PREFIX = 'delegate_';

/** The name of the tool an entry with `alias` becomes. */
export function delegateToolName(alias: string): string {
  return `${DELEGATE_TOOL_PREFIX}${alias}`;
}

const NAME = /^[A-Za-z0-9_-]+$/;
/** Model APIs accept tool names of at most 64 characters. */
const MAX_TOOL_NAME = 64;

type RawRemoteAgent = NonNullable<RawConfig['remote_agents']>[number];

function prepareOne(a: RawRemoteAgent, i: number): RemoteAgentConfig {
  const key = `remote_agents[${i}]`;
  const name = (a.name ?? '').trim();
  const alias = (a.alias ?? '').trim();
  const url = (a.url ?? '').trim();
  if (url !== '') checkServiceUrl(url, `${key}.url`);
  const timeout = parseDuration(a.timeout, `${key}.timeout`, DEFAULT_DELEGATE_TIMEOUT);
  if (timeout.ms <= 0)
    throw ConfigError.of(
      'value',
      `${key}.timeout`,
      `must be positive, got "${timeout.text}"; a delegation needs time to run (default ${DEFAULT_DELEGATE_TIMEOUT})`,
    );
  return {
    name,
    alias: alias === '' ? name : alias,
    transport: url === '' ? 'nats' : 'a2a-http',
    url: url === '' ? undefined : url,
    headers: a.headers ?? {},
    confirm: a.confirm ?? false,
    timeout,
    countBudget: a.count_budget ?? false,
  };
}

/** The entries as a run uses them, defaults applied. Throws `ConfigError` naming the key for a bad url or timeout. */
export function prepareRemoteAgents(raw: readonly RawRemoteAgent[]): RemoteAgentConfig[] {
  return raw.map((a, i) => prepareOne(a, i));
}

/** What is wrong with the `remote_agents` entries, whatever the command. */
export function remoteAgentIssues(config: Config): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  const aliases = new Map<string, number>();
  config.remoteAgents.forEach((agent, i) => {
    const key = `remote_agents[${i}]`;
    if (agent.name === '') {
      const what = agent.transport === 'nats' ? "the peer agent's identity on NATS" : 'a short name for the A2A agent at url';
      out.push({ code: 'missing', key: `${key}.name`, message: `is required: ${what}` });
      return;
    }
    if (!NAME.test(agent.name)) {
      out.push({
        code: 'value',
        key: `${key}.name`,
        message: `"${agent.name}" is invalid: use only letters, digits, '-' and '_' (it names NATS subjects and the delegation chain)`,
      });
    }
    if (!NAME.test(agent.alias)) {
      out.push({
        code: 'value',
        key: `${key}.alias`,
        message: `"${agent.alias}" is invalid: use only letters, digits, '-' and '_' (the tool is named delegate_<alias>)`,
      });
    } else if (delegateToolName(agent.alias).length > MAX_TOOL_NAME) {
      out.push({
        code: 'value',
        key: `${key}.alias`,
        message: `"${agent.alias}" is too long: the tool delegate_<alias> may have at most ${MAX_TOOL_NAME} characters; choose a shorter alias`,
      });
    }
    const earlier = aliases.get(agent.alias);
    if (earlier !== undefined) {
      out.push({
        code: 'value',
        key: `${key}.alias`,
        message: `"${agent.alias}" is used by remote_agents[${earlier}] too; give each peer its own alias (each becomes the tool delegate_<alias>)`,
      });
    } else {
      aliases.set(agent.alias, i);
    }
    if (agent.transport === 'nats' && Object.keys(agent.headers).length > 0) {
      out.push({
        code: 'value',
        key: `${key}.headers`,
        message:
          'apply only to an A2A peer reached over HTTP; set url to the agent card, or remove headers (NATS credentials come from nats_context)',
      });
    }
    for (const header of Object.keys(agent.headers)) {
      if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(header)) {
        out.push({
          code: 'value',
          key: `${key}.headers.${header}`,
          message: 'is not a valid HTTP header name; use letters, digits and - (for example Authorization or X-Api-Key)',
        });
      }
    }
  });
  return out;
}

/** What a run needs besides: a NATS context for every peer reached over NATS. */
export function remoteAgentRunIssues(c: Config): ConfigIssue[] {
  const index = c.remoteAgents.findIndex((a) => a.transport === 'nats');
  if (index < 0 || c.natsContext !== undefined) return [];
  return [
    {
      code: 'missing',
      key: 'nats_context',
      message: `is required by remote_agents[${index}] (${JSON.stringify(c.remoteAgents[index]?.name ?? '')}), a peer reached over NATS; set nats_context, or give the entry the url of an A2A agent card`,
    },
  ];
}
