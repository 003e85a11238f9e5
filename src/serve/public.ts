/**
 * Serving as the package offers it to embedders: the server that takes work from channels (the
 * `Channel` contract an embedder implements), the JetStream jobs channel `expose.agent.jobs`
 * describes, and the error they throw. Code inside the tree imports `index.ts`.
 */
export { startServer, openConfiguredJobs, ServeError } from './index.js';
export type {
  Channel,
  PauseListener,
  Settlement,
  Work,
  WorkIds,
  WorkResult,
  Server,
  ServerNotice,
  ServerOptions,
  Service,
  JobsChannel,
  ConfiguredJobs,
  ServeErrorCode,
} from './index.js';
export type { ChannelStatus, PullState, PULL_STATES } from './dependency-pause.js';
export type { ServedOutcome, SERVED_OUTCOMES } from '../telemetry/vocabulary.js';
export type { TaskStore } from '../tasks/store.js';
export type { AttemptFailure, TaskBudget, TaskFailure, TaskProgress, TaskRecord, TaskResult, TaskState } from '../tasks/record.js';
export type { TASK_FAILURES, TASK_STATES } from '../tasks/record.js';
// the closed vocabularies the types above are drawn from, as types only
export type { SERVE_ERROR_CODES } from './index.js';
