import type { ApplicationMeta } from './describe.js';
import { describeApplication } from './describe.js';
import type { CommandLike } from './command-like.js';

/** The flag fisk-ai runs an application with to learn its commands. */
export const INTROSPECT_FLAG = '--fisk-introspect';

/** Where to look for the flag and where to write the answer, plus the version and author reported. */
export interface AnswerOptions extends ApplicationMeta {
  /** The arguments to inspect (default `process.argv`). */
  readonly argv?: readonly string[];
  /** Where the model is written (default standard output). */
  readonly write?: (text: string) => void;
}

/**
 * Answers `--fisk-introspect` when it is among the arguments: prints the application model and
 * returns true, so the caller skips its normal parse. Call it before `program.parse()`:
 *
 * ```ts
 * if (!answerIntrospection(program, { version: '1.0.0' })) await program.parseAsync();
 * ```
 */
export function answerIntrospection(program: CommandLike, options: AnswerOptions = {}): boolean {
  const argv = options.argv ?? process.argv;
  if (!argv.includes(INTROSPECT_FLAG)) return false;
  const write = options.write ?? ((text: string) => void process.stdout.write(text));
  write(`${JSON.stringify(describeApplication(program, options))}\n`);
  return true;
}
