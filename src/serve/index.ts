/** Serving an agent to others, and following a run another agent hosts. */
export { startToolServer, checkServable } from './tool-server.js';
export type { NotServed, Servable, ToolServer, ToolServerOptions } from './tool-server.js';
export { runRemote, eventFromBlock, statusForStopReason } from './remote-run.js';
export type { RemoteRunOptions, RemoteRunOutcome } from './remote-run.js';
export { ServeError, SERVE_ERROR_CODES } from './errors.js';
export type { ServeErrorCode } from './errors.js';
export type { Channel, Work, WorkResult } from './channel.js';
export { startServer } from './server.js';
export type { Server, ServerNotice, ServerOptions, Service } from './server.js';
export { promptChannel, blockFromEvent, endingFor } from './prompt-channel.js';
export type { PromptChannel, PromptChannelOptions } from './prompt-channel.js';
export { openSlackChannel, slackInfoRows, slackTokens, SLACK_TOKEN_VARIABLES } from './slack/index.js';
export type { SlackChannel, SlackChannelOptions, SlackInfoRow } from './slack/index.js';
