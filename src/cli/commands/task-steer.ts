/**
 * Steering the queue from the command line: `fisk task retry` (a failed or dead job queued again
 * under its id, its journal kept and resumed) and `fisk task rm`.
 */
import { randomBytes } from 'node:crypto';
import type { NatsConn } from '../../conns/nats-connect.js';
import { encodeJob } from '../../serve/index.js';
import { TaskError, isFinalState } from '../../tasks/index.js';
import { CliError, ExitWith } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import { println } from '../io.js';
import type { TaskActionFlags } from './task-action.js';
import { report, waitForResult, withStore } from './task-action.js';
import { publishJob, queueSubject } from './task-publish.js';

export async function retryTask(flags: TaskActionFlags, id: string, opts: { readonly wait?: boolean }, io: Io): Promise<void> {
  await withStore(io, flags, true, async ({ config, store, nats }) => {
    const conn = nats as NatsConn;
    const before = await store.get(id);
    if (before === undefined) throw new TaskError('not_found', `no task ${JSON.stringify(id)} in ${store.location}`);
    if (before.state !== 'failed' && before.state !== 'dead') {
      throw new CliError(
        `task ${id} is ${before.state}; only a failed or dead job can be retried${before.state === 'completed' ? '' : ' (it is still in the queue: fisk task show ' + id + ')'}`,
        EXIT.usage,
      );
    }
    const { stream, subject } = await queueSubject(config, conn);
    // the job is queued as it was first submitted: same prompt, same lowered limits
    const data = encodeJob({ prompt: before.prompt, id, ...(before.budget === undefined ? {} : { budget: before.budget }) });
    await store.reopen(id);
    try {
      // a new message id: the first submission's id may still be inside the duplicate window
      await publishJob(conn, subject, data, `${id}.retry.${randomBytes(6).toString('hex')}`);
    } catch (err) {
      // nothing was queued: put the result back so the task does not sit pending with no job
      if (before.reason !== undefined && before.message !== undefined && (before.state === 'failed' || before.state === 'dead')) {
        await store.complete(id, { state: before.state, reason: before.reason, message: before.message }).catch(() => undefined);
      }
      throw err;
    }
    println(io.err, `re-queued job ${id} on ${stream}; its journal is kept, so the run resumes where it stopped: fisk task show ${id}`);
    if (opts.wait !== true) {
      println(io.out, id);
      return;
    }
    const result = await waitForResult(store, id, undefined, (line) => println(io.err, line));
    if (result === 'interrupted') {
      println(io.err, `stopped waiting; the job still runs: fisk task show ${id}`);
      throw new ExitWith(EXIT.aborted);
    }
    if (result === 'timeout') throw new ExitWith(EXIT.error);
    report(result, id, io);
  });
}

export async function removeTask(flags: TaskActionFlags, id: string, io: Io): Promise<void> {
  await withStore(io, flags, false, async ({ store }) => {
    const task = await store.get(id);
    if (task === undefined) throw new TaskError('not_found', `no task ${JSON.stringify(id)} in ${store.location}`);
    if (!isFinalState(task.state)) {
      throw new CliError(
        `task ${id} is ${task.state}: its job is still in the queue and would record it again; remove it once it has a result`,
        EXIT.usage,
      );
    }
    await store.remove(id);
    println(io.err, `removed task ${id} (${task.state}); its journal ${task.run_id} is kept: fisk session show ${task.run_id}`);
  });
}
