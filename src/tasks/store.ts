/**
 * The task store contract every backend implements. A store is built once by a host and borrowed
 * by whoever records tasks; it never closes a connection it was handed.
 */
import type { TaskProgress, TaskRecord, TaskResult } from './record.js';

/**
 * Where tasks are kept. Ids are checked by every method (`invalid_id`); records are checked
 * against the schema before every write and after every read (`schema`).
 *
 * - `ask` records a new task as given (pending, or running when the worker recording it starts it
 *   at once) and returns that very record, or returns the record already stored under the id (a
 *   redelivered or resubmitted task keeps its first record and any result it has).
 * - `get` returns the record, or `undefined` for an unknown id.
 * - `complete` stores the result once. A task that already has a result is refused
 *   (`completed`, the first result stands); an unknown id is `not_found`.
 * - `progress` records, for a task still without a result, that a worker runs it or handed it
 *   back after a failed attempt; a task with its result is returned unchanged (the result stands).
 * - `reopen` makes a `failed` or `dead` task `pending` again, its attempts starting over; a task
 *   that is not failed or dead is refused (`state`).
 * - `remove` deletes a task; false when there was none.
 * - `list` returns every task, newest first.
 */
export interface TaskStore {
  /** The registered backend name (`file`, `jetstream`). */
  readonly backend: string;
  /** Where tasks live, for messages (`/home/x/.local/state/fisk-ai/tasks`, `KV bucket TASKS`). */
  readonly location: string;
  ask(record: TaskRecord): Promise<TaskRecord>;
  get(id: string): Promise<TaskRecord | undefined>;
  complete(id: string, result: TaskResult): Promise<TaskRecord>;
  progress(id: string, progress: TaskProgress): Promise<TaskRecord>;
  reopen(id: string): Promise<TaskRecord>;
  remove(id: string): Promise<boolean>;
  list(): Promise<readonly TaskRecord[]>;
  /**
   * Lets go of what the store keeps ready between calls (the file store's spare files). A store
   * need not be closed, and one that is still works: it makes what it needs as it goes.
   */
  close?(): Promise<void>;
}

/** Newest first, then by id, so two listings of one store agree. */
export function newestFirst(records: readonly TaskRecord[]): TaskRecord[] {
  return [...records].sort((a, b) => (a.created === b.created ? a.id.localeCompare(b.id) : a.created < b.created ? 1 : -1));
}
