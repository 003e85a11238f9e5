/**
 * Tasks: what was asked and what came back, apart from the journal that records how the work was
 * done. Backends `file` and `jetstream` (a KV bucket) through a registry.
 */
export { TaskError, TASK_ERROR_CODES, isTaskError } from './errors.js';
export type { TaskErrorCode } from './errors.js';
export {
  TASK_STATES,
  FINAL_TASK_STATES,
  TASK_FAILURES,
  MAX_ATTEMPT_FAILURES,
  isFinalState,
  TASK_ID_PATTERN,
  TASK_ID_MAX_LENGTH,
  TASK_RECORD_SCHEMA,
  checkTaskId,
  checkTaskRecord,
  decodeTaskRecord,
  encodeTaskRecord,
  pendingTask,
  finishedTask,
  progressedTask,
  reopenedTask,
} from './record.js';
export type { AttemptFailure, FinalTaskState, TaskBudget, TaskFailure, TaskProgress, TaskRecord, TaskResult, TaskState } from './record.js';
export type { TaskStore } from './store.js';
export { fileTaskStore } from './file.js';
// the JetStream store is reached through the registry, which loads it only when a run uses it
export { registerTaskBackend, taskBackendNames, taskBackendNeeds, describeTaskStore, openTaskStore, defaultTasksDir } from './registry.js';
export type { TaskBackend, TaskBackendDeps, TaskBackendNeed, TaskInfoRow } from './registry.js';
