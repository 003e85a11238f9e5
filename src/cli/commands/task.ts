/**
 * `fisk task ls|show|submit|retry|rm`: the task store (what was asked and what came back) and the work
 * queue. Everything printed from a task is stripped of control sequences first: prompts and
 * answers are untrusted text.
 */
import type { Command } from 'commander';
import type { Io } from '../io.js';
import type { TaskActionFlags, SubmitFlags } from './task-action.js';

/** Registers `fisk task`. */
export function registerTask(program: Command, io: Io): void {
  const task = program
    .command('task')
    .description('list and show tasks, and submit jobs to the work queue (expose.agent.jobs)')
    .option('--config <file>', 'use the task store this configuration names (tasks); submit needs it', 'agent.yaml')
    .option('--state-dir <dir>', 'the state directory whose tasks/ the file backend uses (as fisk serve --state-dir)');

  const flagsOf = (cmd: Command): TaskActionFlags => (cmd.parent?.opts() ?? {}) as TaskActionFlags;

  task
    .command('ls')
    .alias('list')
    .description('list tasks, newest first: state, attempts, and the worker running each running one')
    .option('--state <state>', 'only tasks in this state: pending, running, completed, failed or dead')
    .action(async (opts: { state?: string }, cmd: Command) => {
      const { listTasks } = await import('./task-action.js');
      await listTasks(flagsOf(cmd), io, opts);
    });

  task
    .command('show')
    .alias('view')
    .description('show a task: its state, prompt, and answer or failure')
    .argument('<id>', 'the task id')
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      const { showTask } = await import('./task-action.js');
      await showTask(flagsOf(cmd), id, io);
    });

  task
    .command('retry')
    .description('queue a failed or dead job again under its id; its journal is kept and the run resumes')
    .argument('<id>', 'the task id')
    .option('--wait', 'wait for the result and print the answer')
    .action(async (id: string, opts: { wait?: boolean }, cmd: Command) => {
      const { retryTask } = await import('./task-steer.js');
      await retryTask(flagsOf(cmd), id, opts, io);
    });

  task
    .command('rm')
    .alias('remove')
    .description('remove a task that has its result (its journal is kept)')
    .argument('<id>', 'the task id')
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      const { removeTask } = await import('./task-steer.js');
      await removeTask(flagsOf(cmd), id, io);
    });

  task
    .command('submit')
    .description('publish a job to the work queue; prints the task id, or the answer with --wait')
    .argument('[prompt...]', 'what to ask (read from standard input when absent and piped)')
    .option('--id <id>', 'the job id: a job whose id already has a result is not run again (default: a new id)')
    .option('--max-tokens <n>', 'lower the token budget for this job')
    .option('--max-iterations <n>', 'lower the iteration limit for this job')
    .option('--wait', 'wait for the result and print the answer')
    .option('--timeout <duration>', 'with --wait, give up waiting after this long (e.g. 10m); the job still runs')
    .action(async (prompt: string[], opts: SubmitFlags, cmd: Command) => {
      const { submitTask } = await import('./task-action.js');
      await submitTask(flagsOf(cmd), prompt, opts, io);
    });
}
