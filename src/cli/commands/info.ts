import type { Command } from 'commander';
import { configWarnings, describeSettings, parseConfigForMode } from '../../config/index.js';
import type { Config, Override, Setting } from '../../config/index.js';
import type { Io } from '../io.js';
import { println } from '../io.js';

interface InfoOptions {
  readonly config: string;
  readonly json?: boolean;
}

/** Tool search support by provider name, until providers report their own capabilities here. */
const TOOL_SEARCH_PROVIDERS: Readonly<Record<string, boolean>> = { anthropic: true, openai: true, 'openai-chat': false };

/** The machine-readable `fisk info` document. Field names are stable. */
export interface InfoReport {
  readonly config: string;
  readonly identity: { readonly name: string; readonly source: Config['identitySource'] };
  readonly model: {
    readonly provider: string;
    readonly model: string;
    readonly thinking: Config['llm']['thinking'];
    readonly toolSearch: string;
  } | null;
  readonly settings: readonly Setting[];
  readonly warnings: readonly { readonly key: string; readonly message: string }[];
  readonly prompt: string;
}

/** Values set outside the file that a run would use, so their origin can be reported. */
function environmentOverrides(config: Config, env: Io['env']): Override[] {
  const out: Override[] = [];
  const baseUrlVar = config.llm.provider.startsWith('openai') ? 'OPENAI_BASE_URL' : 'ANTHROPIC_BASE_URL';
  const baseUrl = env[baseUrlVar];
  if (baseUrl !== undefined && baseUrl !== '') out.push({ key: 'llm.base_url', value: baseUrl, origin: 'environment' });
  return out;
}

function toolSearch(config: Config): string {
  if (config.llm.noToolSearch) return 'disabled (llm.no_tool_search)';
  const supported = TOOL_SEARCH_PROVIDERS[config.llm.provider];
  if (supported === undefined) return `unknown (provider "${config.llm.provider}" is not available)`;
  if (!supported) return `unavailable (provider "${config.llm.provider}" does not support it; every tool is sent)`;
  return 'enabled (definitions are deferred once more than 10 tools are available)';
}

/** Builds the report `fisk info` prints. */
export function buildInfoReport(config: Config, env: Io['env']): InfoReport {
  return {
    config: config.source,
    identity: { name: config.identity, source: config.identitySource },
    model:
      config.llm.model === ''
        ? null
        : { provider: config.llm.provider, model: config.llm.model, thinking: config.llm.thinking, toolSearch: toolSearch(config) },
    settings: describeSettings(config, environmentOverrides(config, env)),
    warnings: configWarnings(config),
    prompt: config.systemPrompt,
  };
}

function renderValue(v: Setting['value']): string {
  if (v === null) return '(unset)';
  if (Array.isArray(v)) return v.length === 0 ? '[]' : v.join(', ');
  return String(v);
}

function renderText(report: InfoReport, io: Io): void {
  const out = io.out;
  for (const w of report.warnings) println(io.err, `warning: ${w.key}: ${w.message}`);
  println(out, `Agent ${report.identity.name} (identity ${report.identity.source === 'explicit' ? 'set in the file' : report.identity.source === 'application' ? 'taken from the application name' : 'default'})`);
  println(out);
  println(out, 'Model');
  if (report.model === null) {
    println(out, '  (no llm.model set: this configuration cannot run an agent loop)');
  } else {
    println(out, `  Provider     ${report.model.provider}`);
    println(out, `  Model        ${report.model.model}`);
    println(out, `  Thinking     ${report.model.thinking}`);
    println(out, `  Tool search  ${report.model.toolSearch}`);
  }
  println(out);
  println(out, 'Settings');
  const width = Math.max(...report.settings.map((s) => s.key.length));
  for (const s of report.settings) {
    println(out, `  ${s.key.padEnd(width)}  ${renderValue(s.value)}  [${s.origin}]`);
  }
  println(out);
  println(out, 'Prompt');
  if (report.prompt.trim() === '') {
    println(out, '  (no system_prompt defined)');
  } else {
    for (const line of report.prompt.replace(/\n+$/, '').split('\n')) println(out, `  ${line}`);
  }
}

export function registerInfo(program: Command, io: Io): void {
  program
    .command('info')
    .description('show the effective configuration, its origins, the model and the prompt')
    .option('--config <file>', 'the agent configuration', 'agent.yaml')
    .option('--json', 'print a stable machine-readable document')
    .action((opts: InfoOptions) => {
      const config = parseConfigForMode({ path: opts.config }, 'info');
      const report = buildInfoReport(config, io.env);
      if (opts.json === true) {
        io.out.write(`${JSON.stringify(report, null, 2)}\n`);
      } else {
        renderText(report, io);
      }
    });
}
