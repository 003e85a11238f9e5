/** The Slack channel of `fisk serve`. */
export { openSlackChannel, SlackChannel, DEFAULT_QUESTION_WINDOW_MS } from './channel.js';
export type { SlackChannelOptions } from './channel.js';
export {
  describeApprovers,
  slackApiBase,
  slackTokens,
  slackInfoRows,
  threadSessionId,
  SLACK_API_URL_VARIABLE,
  SLACK_TOKEN_VARIABLES,
} from './settings.js';
export type { SlackTokens, SlackInfoRow } from './settings.js';
export { splitMessage, toMrkdwn, SLACK_MESSAGE_LIMIT } from './render.js';
