import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config/errors.js';
import { isFiskError } from '../errors/fisk-error.js';
import { ExitWith } from './errors.js';
import { EXIT, exitFor } from './exit-codes.js';
import type { Io } from './io.js';
import { println } from './io.js';
import { nativeModuleAdvice } from './native-modules.js';
import { packageVersion } from './version.js';
import { registerDiscover } from './commands/discover.js';
import { registerInfo } from './commands/info.js';
import { registerInit } from './commands/init.js';
import { applyHelpSettings } from './help.js';
import { registerKnowledge } from './commands/knowledge.js';
import { registerMcp } from './commands/mcp.js';
import { registerMemory } from './commands/memory.js';
import { registerProvision } from './commands/provision.js';
import { registerRun } from './commands/run.js';
import { registerServe } from './commands/serve.js';
import { registerSession } from './commands/session.js';
import { registerTask } from './commands/task.js';
import { registerWeb } from './commands/web.js';

/** Builds the `fisk` command with every command registered. */
export function buildProgram(io: Io): Command {
  const program = new Command('fisk')
    .description('fisk-ai: run, serve and inspect agents that can do only what they were given')
    .version(packageVersion(), '--version', 'print the version')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.out.write(s),
      writeErr: (s) => io.err.write(s),
    });
  registerRun(program, io);
  registerServe(program, io);
  registerMcp(program, io);
  registerWeb(program, io);
  registerKnowledge(program, io);
  registerSession(program, io);
  registerTask(program, io);
  registerProvision(program, io);
  registerInfo(program, io);
  registerDiscover(program, io);
  registerInit(program, io);
  registerMemory(program, io);
  applyHelpSettings(program, io);
  return program;
}

/** Runs the CLI and returns the exit code; never throws. */
export async function runCli(argv: readonly string[], io: Io): Promise<number> {
  const program = buildProgram(io);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return EXIT.ok;
  } catch (err) {
    return reportError(err, io);
  }
}

function reportError(err: unknown, io: Io): number {
  if (err instanceof CommanderError) {
    // help and version arrive here as "errors" with exit code 0
    return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
  }
  if (err instanceof ExitWith) return err.exitCode;
  if (err instanceof ConfigError) {
    println(io.err, `fisk: configuration error:`);
    for (const line of err.message.split('\n')) println(io.err, `  ${line}`);
    return EXIT.config;
  }
  const message = nativeModuleAdvice(err) ?? (err instanceof Error ? err.message : String(err));
  println(io.err, `fisk: ${message}`);
  return isFiskError(err) ? exitFor(err) : EXIT.error;
}
