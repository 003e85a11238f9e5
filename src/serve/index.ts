/** Serving an agent to others, and following a run another agent hosts. */
export { startToolServer, checkServable } from './tool-server.js';
export type { NotServed, Servable, ToolServer, ToolServerOptions } from './tool-server.js';
export { runRemote, eventFromBlock, statusForStopReason } from './remote-run.js';
export type { RemoteRunOptions, RemoteRunOutcome } from './remote-run.js';
export { startRemoteRun, outcomeFromRemote, startHostedRun, HostedRunFailure } from './remote-handle.js';
export type { RemoteHandleOptions, RemoteRunHandle, HostedHandleOptions, HostedRunHandle } from './remote-handle.js';
export { hostRuns, serveRunsInProcess } from './hosted-run.js';
export type { InprocRunHost, RunHost, RunHostOptions } from './hosted-run.js';
export { ServeError, SERVE_ERROR_CODES } from './errors.js';
export type { ServeErrorCode } from './errors.js';
export type { Channel, PauseListener, Settlement, Work, WorkIds, WorkResult } from './channel.js';
export { startServer, settlementOf } from './server.js';
export { HealthServer } from './health.js';
export type { HealthServerOptions } from './health.js';
export { workerId } from './worker-id.js';
export type { Server, ServerNotice, ServerOptions, Service } from './server.js';
export { openJobsChannel, openConfiguredJobs, bindQueue, submitSubject, jobsStreamAddCommand, jobsConsumerAddCommand } from './jobs.js';
export type { JobsChannel, JobsChannelOptions, ConfiguredJobs, BoundQueue } from './jobs.js';
export { decodeJob, encodeJob, jobBudget, jobRunId, sequenceTaskId, JOB_SCHEMA, MAX_JOB_BYTES } from './job.js';
export type { Job } from './job.js';
export { promptChannel, blockFromEvent, endingFor } from './prompt-channel.js';
export type { PromptChannel, PromptChannelOptions } from './prompt-channel.js';
// the Slack client is loaded only by whoever opens the channel (import './slack/index.js')
export {
  describeApprovers,
  slackApiBase,
  slackInfoRows,
  slackTokens,
  threadSessionId,
  SLACK_API_URL_VARIABLE,
  SLACK_TOKEN_VARIABLES,
} from './slack/settings.js';
export type { SlackInfoRow, SlackTokens } from './slack/settings.js';
export type { SlackChannel, SlackChannelOptions } from './slack/channel.js';
export { provision, provisioningPlan, replicaWarnings, describeResource, RESOURCE_KINDS } from './provision.js';
export type { Provisioned, Resource, ResourceKind } from './provision.js';
