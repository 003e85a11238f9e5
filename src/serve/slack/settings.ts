/**
 * What the Slack channel reads besides agent.yaml: its two tokens, only ever from the
 * environment, and the session id a thread is journaled under.
 */
import { createHash } from 'node:crypto';
import { slackApiUrl } from '../../config/index.js';
import type { SlackApprovers } from '../../config/index.js';
import { ServeError } from '../errors.js';

/** The variables the Slack channel reads its tokens from, in the order they are checked. */
export const SLACK_TOKEN_VARIABLES = { app: 'SLACK_APP_TOKEN', bot: 'SLACK_BOT_TOKEN' } as const;

/** The variable that points the channel at another Web API base, over `expose.agent.slack.api_url`. */
export const SLACK_API_URL_VARIABLE = 'SLACK_API_URL';

/**
 * The Web API base the channel talks to: `SLACK_API_URL` when set, else
 * `expose.agent.slack.api_url`, else Slack's own (undefined). Either is refused unless it is https
 * or this machine, because the bot token goes with every call.
 */
export function slackApiBase(env: Readonly<Record<string, string | undefined>>, configured: string | undefined): string | undefined {
  return slackApiUrl(env[SLACK_API_URL_VARIABLE], SLACK_API_URL_VARIABLE) ?? configured;
}

/** Who may answer an approval, in words, for `fisk info` and the banner. */
export function describeApprovers(approvers: SlackApprovers): string {
  switch (approvers.kind) {
    case 'requester':
      return 'requester (only the person whose message started the turn)';
    case 'channel':
      return 'channel (anybody in the channel)';
    case 'users':
      return approvers.users.join(', ');
    default: {
      const never: never = approvers;
      return String(never);
    }
  }
}

/** The two tokens socket mode needs: the app-level token opens the socket, the bot token posts. */
export interface SlackTokens {
  readonly appToken: string;
  readonly botToken: string;
}

/**
 * Reads both tokens from `env`. A missing or blank variable is refused by name; a value of the
 * wrong kind (an app token where the bot token belongs) is refused without echoing it.
 */
export function slackTokens(env: Readonly<Record<string, string | undefined>>): SlackTokens {
  const read = (name: string, prefix: string, what: string): string => {
    const value = env[name]?.trim() ?? '';
    if (value === '') {
      throw new ServeError(
        'no_endpoint',
        `expose.agent.slack needs ${name} in the environment (${what}); Slack tokens are never read from agent.yaml`,
      );
    }
    if (!value.startsWith(prefix)) {
      throw new ServeError(
        'no_endpoint',
        `${name} does not hold ${what} (such a token starts with ${prefix}); check which token went into which variable`,
      );
    }
    return value;
  };
  return {
    appToken: read(SLACK_TOKEN_VARIABLES.app, 'xapp-', 'the app-level token with the connections:write scope'),
    botToken: read(SLACK_TOKEN_VARIABLES.bot, 'xoxb-', "the bot user's OAuth token"),
  };
}

/**
 * The session id of one Slack thread: a hash of the workspace, the channel and the thread's first
 * message timestamp under a prefix of its own, so no text a person typed ever names a journal and
 * no other channel's ids can collide with it.
 */
export function threadSessionId(team: string, channel: string, threadTs: string): string {
  const digest = createHash('sha256').update(`fisk-slack-thread\u0000${team}\u0000${channel}\u0000${threadTs}`).digest('hex');
  return `slack-${digest.slice(0, 40)}`;
}

/** One line of the Slack section `fisk info` prints. */
export interface SlackInfoRow {
  readonly label: string;
  readonly value: string;
}

/**
 * What `fisk info` shows of `expose.agent.slack`: the channels and slots, and which variables the
 * tokens come from with whether each is set. A token's value is never shown.
 */
export function slackInfoRows(
  slack: {
    readonly channels: readonly string[];
    readonly workers: number;
    readonly apiUrl: string | undefined;
    readonly approvers: SlackApprovers;
  },
  env: Readonly<Record<string, string | undefined>>,
): SlackInfoRow[] {
  const state = (name: string): string =>
    `${name} (${(env[name]?.trim() ?? '') === '' ? 'not set: fisk serve will refuse to start' : 'set'})`;
  let api: string;
  try {
    const fromEnv = slackApiUrl(env[SLACK_API_URL_VARIABLE], SLACK_API_URL_VARIABLE);
    api =
      fromEnv !== undefined
        ? `${fromEnv} (from ${SLACK_API_URL_VARIABLE})`
        : slack.apiUrl !== undefined
          ? `${slack.apiUrl} (expose.agent.slack.api_url)`
          : "Slack's own";
  } catch (err) {
    api = `${err instanceof Error ? err.message : String(err)}: fisk serve will refuse to start`;
  }
  return [
    { label: 'Connection', value: 'socket mode (outbound WebSocket; no public address needed)' },
    { label: 'Web API', value: api },
    { label: 'Channels', value: slack.channels.length === 0 ? '(none: set expose.agent.slack.channels)' : slack.channels.join(', ') },
    { label: 'Threads at once', value: String(slack.workers) },
    { label: 'Approvers', value: describeApprovers(slack.approvers) },
    { label: 'App token', value: state(SLACK_TOKEN_VARIABLES.app) },
    { label: 'Bot token', value: state(SLACK_TOKEN_VARIABLES.bot) },
  ];
}
