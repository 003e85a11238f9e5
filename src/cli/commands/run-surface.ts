/**
 * The pieces of `fisk run`'s terminal behaviour that do not depend on the run itself: the prompt
 * read from a pipe, the resume hint, and the model override.
 */
import type { Config } from '../../config/index.js';
import { shellJoin } from '../../util/shell-quote.js';
import { CliError } from '../errors.js';
import { EXIT } from '../exit-codes.js';

/** The longest prompt read from standard input (bytes); more is refused rather than cut. */
export const STDIN_PROMPT_LIMIT = 1024 * 1024;

/**
 * Standard input read to its end as the prompt (`echo question | fisk run`). Whitespace alone
 * reads as no prompt, so the default prompt applies.
 */
export async function readPrompt(stdin: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    size += buf.length;
    if (size > STDIN_PROMPT_LIMIT)
      throw new CliError(`the prompt on standard input is longer than ${STDIN_PROMPT_LIMIT} bytes; pass a shorter one`, EXIT.usage);
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8').trim();
}

/**
 * The command that resumes a suspended run, naming the same configuration file and state
 * directory, so pasting it from any directory resumes the same agent.
 */
export function resumeCommand(runId: string, configPath: string, stateDir: string | undefined): string {
  return shellJoin([
    'fisk',
    'run',
    '--resume',
    runId,
    '--config',
    configPath,
    ...(stateDir === undefined ? [] : ['--state-dir', stateDir]),
  ]);
}

/** The configuration with `llm.model` replaced (`fisk run --model`). */
export function withModel(config: Config, model: string | undefined): Config {
  if (model === undefined) return config;
  return { ...config, llm: { ...config.llm, model } };
}
