/**
 * Helpers shared by this module's tests: a configuration, a scripted prompter and a tool set
 * source over function tools. Not exported from the module index.
 */
import { parseConfigForMode } from '../config/index.js';
import type { Config } from '../config/types.js';
import { settingsFromConfig } from './settings.js';
import type { RunSettings } from './settings.js';
import { newFuncTool } from '../toolkit/functool/index.js';
import type { FuncToolSpec } from '../toolkit/functool/index.js';
import { FrozenToolSet, PublishedToolSetSource } from '../toolkit/tool-set.js';
import type { ApprovalAnswer, ApprovalRequest, Prompter, Tool } from '../toolkit/tool.js';

/** A prepared configuration from YAML lines appended to a minimal agent. */
export function testConfig(extra = ''): Config {
  return parseConfigForMode({ text: `identity: tester\nsystem_prompt: You test things.\nllm:\n  model: test-model\n${extra}` }, 'run');
}

/** The loop's settings from YAML lines appended to a minimal agent. */
export function testSettings(extra = ''): RunSettings {
  return settingsFromConfig(testConfig(extra));
}

/** A prompter answering from queues, recording every question. Empty queues answer conservatively. */
export class ScriptedPrompter implements Prompter {
  readonly approvals: ApprovalRequest[] = [];
  readonly questions: string[] = [];
  constructor(
    readonly decisions: ApprovalAnswer[] = [],
    readonly answers: (boolean | string | null)[] = [],
    readonly present = true,
  ) {}
  canPrompt(): boolean {
    return this.present;
  }
  approve(request: ApprovalRequest): Promise<ApprovalAnswer> {
    this.approvals.push(request);
    return Promise.resolve(this.decisions.shift() ?? 'decline');
  }
  confirm(question: string): Promise<boolean> {
    this.questions.push(question);
    return Promise.resolve(this.answers.shift() === true);
  }
  select(question: string): Promise<string | null> {
    this.questions.push(question);
    const a = this.answers.shift();
    return Promise.resolve(typeof a === 'string' ? a : null);
  }
  input(question: string): Promise<string | null> {
    this.questions.push(question);
    const a = this.answers.shift();
    return Promise.resolve(typeof a === 'string' ? a : null);
  }
}

/** A function tool with a string-argument schema, recording each input it ran with. */
export function recordingTool(
  name: string,
  calls: Record<string, unknown>[],
  extra: Partial<FuncToolSpec> = {},
  output: (input: Record<string, unknown>) => string = (i) => JSON.stringify({ ok: true, echo: i }),
): Tool {
  return newFuncTool({
    name,
    description: `the ${name} tool`,
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: [] },
    handler: (input) => {
      calls.push(input);
      return Promise.resolve({ status: 'completed', output: output(input), isError: false });
    },
    ...extra,
  });
}

/** A source publishing one set of the given tools, all sent (no deferral). */
export function sourceOf(tools: readonly Tool[]): PublishedToolSetSource {
  return new PublishedToolSetSource(new FrozenToolSet(tools.map((tool) => ({ tool, source: 'custom' as const, deferred: false }))));
}
