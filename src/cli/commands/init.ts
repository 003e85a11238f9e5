/**
 * `fisk init`: writes a commented starter agent.yaml for one provider and prints the next two
 * commands to try. It never overwrites: an existing file is someone's work.
 */
import { writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { Option } from 'commander';
import type { Command } from 'commander';
import { CliError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import { println } from '../io.js';

/** The providers a starter file can be written for. */
export const INIT_PROVIDERS = ['anthropic', 'openai', 'openai-chat'] as const;
export type InitProvider = (typeof INIT_PROVIDERS)[number];

const HEADER = `# A fisk-ai agent. Every key is described in docs/configuration.md of fisk-ai.
# Check what this agent will run with: fisk info --config <this file>

# The name the agent answers to, in prompts and when it is served.
identity: helper

# What the model is told before every run.
system_prompt: |
  You are a concise assistant. Answer in a few sentences.
`;

function llmBlock(provider: InitProvider): string {
  switch (provider) {
    case 'anthropic':
      return `
llm:
  # Needs ANTHROPIC_API_KEY in the environment.
  provider: anthropic
  model: claude-sonnet-4-6
  budget:
    max_iterations: 10     # model calls per run before it stops
    # max_tokens: 200000   # total tokens per run
`;
    case 'openai':
      return `
llm:
  # Needs OPENAI_API_KEY in the environment.
  provider: openai
  model: gpt-5-mini
  budget:
    max_iterations: 10     # model calls per run before it stops
    # max_tokens: 200000   # total tokens per run
`;
    case 'openai-chat':
      return `
llm:
  # An OpenAI-compatible server (Ollama, LM Studio, llama.cpp, vLLM). On this machine no key is
  # needed; elsewhere set OPENAI_API_KEY.
  provider: openai-chat
  model: qwen3:8b
  base_url: http://127.0.0.1:11434/v1
  budget:
    max_iterations: 10     # model calls per run before it stops
`;
    default: {
      const never: never = provider;
      return never;
    }
  }
}

const TOOLS = `
# The agent starts with no tools. Give it some (docs/tools.md):
#
# application_path: ./my-app          # a command-line application answering --fisk-introspect
# exclude:
#   tags: [ai:deny]                   # commands the model never sees
#
# harness:
#   confirm_tags: [impact:rw]         # tags that wait for your approval, besides ai:confirm
#   human_in_the_loop:
#     enabled: true                   # lets the model ask you questions
#   memory:
#     enabled: true                   # remembers across runs (docs/memory.md)
#     backend: file                   # in files beside agent.yaml
`;

/** The text of a starter agent.yaml for `provider`; it parses as a valid configuration. */
export function starterConfig(provider: InitProvider): string {
  return `${HEADER}${llmBlock(provider)}${TOOLS}`;
}

function keyVar(provider: InitProvider): string | undefined {
  switch (provider) {
    case 'anthropic':
      return 'ANTHROPIC_API_KEY';
    case 'openai':
      return 'OPENAI_API_KEY';
    case 'openai-chat':
      return undefined;
    default: {
      const never: never = provider;
      return never;
    }
  }
}

/** A path as the user should type it: relative to where they are when that is shorter. */
function shown(cwd: string, path: string): string {
  const rel = relative(cwd, path);
  const p = rel !== '' && !rel.startsWith('..') ? rel : path;
  return /^[\w./@:+-]+$/.test(p) ? p : `'${p.replaceAll("'", `'\\''`)}'`;
}

interface InitFlags {
  readonly provider: InitProvider;
}

/** Registers `fisk init`. */
export function registerInit(program: Command, io: Io): void {
  program
    .command('init')
    .description('write a commented starter agent.yaml and print the next commands to try')
    .argument('[file]', 'where to write it', 'agent.yaml')
    .addOption(new Option('--provider <name>', 'the model provider the file is set up for').choices(INIT_PROVIDERS).default('anthropic'))
    .action((file: string, flags: InitFlags) => {
      const path = resolve(io.cwd, file);
      try {
        writeFileSync(path, starterConfig(flags.provider), { flag: 'wx' });
      } catch (err) {
        if (typeof err === 'object' && err !== null && 'code' in err && err.code === 'EEXIST') {
          throw new CliError(
            `${path} already exists; fisk init never overwrites a file: remove it or name another file (fisk init other.yaml)`,
            EXIT.usage,
            { cause: err },
          );
        }
        if (typeof err === 'object' && err !== null && 'code' in err && err.code === 'ENOENT') {
          throw new CliError(
            `cannot write ${path}: the directory ${dirname(path)} does not exist; create it first (mkdir -p ${dirname(path)})`,
            EXIT.usage,
            { cause: err },
          );
        }
        throw new CliError(`cannot write ${path}: ${err instanceof Error ? err.message : String(err)}`, EXIT.error, { cause: err });
      }
      const config = shown(io.cwd, path);
      println(io.err, `Wrote ${path} for provider ${flags.provider}.`);
      const key = keyVar(flags.provider);
      if (key !== undefined) println(io.err, `It needs ${key} in the environment (export ${key}=...).`);
      println(io.err, 'Next, try:');
      println(io.err, `  fisk info --config ${config}`);
      println(io.err, `  fisk run --config ${config} "What can you do?"`);
    });
}
