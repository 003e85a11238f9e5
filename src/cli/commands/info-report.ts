/** The `fisk info` report: built from a runtime and its tool set, printed as text or JSON. */
import { systemBlocks } from '../../agent/system-prompt.js';
import type { InfoRow } from '../../memory/registry.js';
import type { describeTaskStore as DescribeTaskStore } from '../../tasks/index.js';
import { describeSettings } from '../../config/describe.js';
import { configWarnings } from '../../config/warnings.js';
import type { Config, Override, Setting } from '../../config/index.js';
import type { AssembledTools, Runtime } from '../../host/index.js';
import { isLocalEndpoint, locateEndpoint } from '../../llm/endpoint.js';
import type { ToolDef } from '../../llm/types.js';
import type { TelemetrySettingRow } from '../../telemetry/index.js';
import type { GlobalFlagReport } from '../../toolkit/fisk/global-flags.js';
import { stripControl } from '../../toolkit/fisk/trace.js';
import { FuncTool } from '../../toolkit/functool/functool.js';
import { gateOf } from '../../toolkit/invoke/gate.js';
import type { FilteredTool, SourceName, ToolWarning } from '../../toolkit/source.js';
import type { Kind } from '../../toolkit/tool.js';
import { describeToolReach } from '../../toolkit/tool-search.js';
import type { ToolReach } from '../../toolkit/tool-search.js';
import type { Io } from '../io.js';
import { println } from '../io.js';
import { renderSandbox, runtimeSandbox, sandboxCell, toolSandbox } from './info-sandbox.js';
import type { InfoSandbox, InfoToolSandbox } from './info-sandbox.js';
import { counted } from '../../util/count.js';

/** One tool as `fisk info` lists it: exactly an entry of the run's tool set. */
export interface InfoTool {
  readonly name: string;
  readonly source: SourceName;
  readonly label?: string;
  readonly kind: Kind;
  /** The plain description; tags have their own column. */
  readonly description: string;
  readonly tags: readonly string[];
  readonly gated: boolean;
  readonly trigger?: string;
  readonly deferred: boolean;
  /** An imported tool's name where it comes from, when the model knows it by another (a prefix, a rewritten name). */
  readonly remoteName?: string;
  /** For a delegation tool (`remote_agents`): the peer, how it is reached, and where. */
  readonly delegation?: { readonly agent: string; readonly transport: 'nats' | 'a2a-http'; readonly endpoint: string };
  /** The definition the model is sent, byte for byte. */
  readonly definition: ToolDef;
  /** The sandbox the tool's process runs in; `null` for a tool that starts no process of fisk's. */
  readonly sandbox: InfoToolSandbox | null;
}

/** Where a run's model calls go, and where that address came from. */
export interface ModelEndpoint {
  readonly url: string;
  readonly from: string;
}

/** Whether a run finds its API key (never the key itself). */
export interface ModelKey {
  readonly variable: string;
  readonly state: 'set' | 'missing' | 'not_needed';
}

/** The machine-readable `fisk info` document. Field names are stable. */
export interface InfoReport {
  readonly config: string;
  readonly identity: { readonly name: string; readonly source: Config['identitySource'] };
  readonly model: {
    readonly provider: string;
    readonly model: string;
    readonly thinking: Config['llm']['thinking'];
    readonly toolSearch: string;
    /** The endpoint a run calls and where that came from (a variable, `llm.base_url` or `default`); absent for a provider this build does not know. */
    readonly endpoint?: ModelEndpoint;
    /** Whether a run finds the API key it needs (never the key itself): `set`, `missing`, or `not_needed` for an endpoint on this machine. */
    readonly apiKey?: ModelKey;
  } | null;
  readonly settings: readonly Setting[];
  readonly warnings: readonly { readonly key: string; readonly message: string }[];
  /** The operator's `system_prompt` as written. */
  readonly prompt: string;
  /** The system prompt segments exactly as the model is sent them on a run's first call. */
  readonly system: readonly string[];
  /** The run's tool set, in the order the model is sent it. */
  readonly tools: readonly InfoTool[];
  /** The sandbox children run in; null when nothing asks for one. */
  readonly sandbox: InfoSandbox | null;
  /** Which tools are deferred and how the model reaches them. */
  readonly toolReach: ToolReach;
  /** Every tool left out of the set, with the reason. */
  readonly filtered: readonly FilteredTool[];
  /** The application's visible global flags and whether each is exposed; null without an application. */
  readonly globalFlags: readonly GlobalFlagReport[] | null;
  /** The Memory section (backend, where it stores, index, access, limits); null when memory is disabled. */
  readonly memory: readonly InfoRow[] | null;
  /** The Tasks section (backend, where results are kept); null unless the agent takes jobs or names a task store. */
  readonly tasks: readonly InfoRow[] | null;
  /** The Slack section (channels, slots, which variables hold the tokens); null without `expose.agent.slack`. */
  readonly slack: readonly { readonly label: string; readonly value: string }[] | null;
  /** Every telemetry setting with its effective value and where it came from (file, variable, default). */
  readonly telemetry: readonly TelemetrySettingRow[];
}

/**
 * The endpoint a run of this configuration calls, and whether it finds its key, found the way
 * `fisk run` without flags finds them. The key's value is never shown.
 */
function modelAccess(runtime: Runtime, env: Io['env']): { endpoint: ModelEndpoint; apiKey: ModelKey } | undefined {
  const facts = runtime.facts;
  if (facts?.defaultBaseUrl === undefined || facts.baseUrlEnv === undefined || facts.apiKeyEnv === undefined) return undefined;
  const vars = { baseUrlVar: facts.baseUrlEnv, apiKeyVar: facts.apiKeyEnv };
  const found = locateEndpoint(
    { env, ...(runtime.config.llm.baseUrl === undefined ? {} : { baseUrlFallback: runtime.config.llm.baseUrl }) },
    vars,
  );
  const from = found.source === 'variable' ? vars.baseUrlVar : found.source === 'file' ? 'llm.base_url' : 'default';
  const endpoint = { url: found.raw ?? facts.defaultBaseUrl, from };
  const state: ModelKey['state'] =
    found.apiKey !== undefined ? 'set' : found.raw !== undefined && isLocalEndpoint(found.raw) ? 'not_needed' : 'missing';
  return { endpoint, apiKey: { variable: vars.apiKeyVar, state } };
}

/** The API key row: whether a run finds its key, and what to do when it does not. */
function apiKeyLine(k: ModelKey): string {
  switch (k.state) {
    case 'set':
      return `set (${k.variable})`;
    case 'not_needed':
      return `none needed: the endpoint is this machine (${k.variable} is not set)`;
    case 'missing':
      return `missing: fisk run needs ${k.variable} exported`;
    default: {
      const never: never = k.state;
      return never;
    }
  }
}

/** Values set outside the file that a run would use, so their origin can be reported. */
function environmentOverrides(runtime: Runtime, env: Io['env']): Override[] {
  const out: Override[] = [];
  const baseUrlVar = runtime.facts?.baseUrlEnv;
  const baseUrl = baseUrlVar === undefined ? undefined : env[baseUrlVar];
  if (baseUrl !== undefined && baseUrl !== '') out.push({ key: 'llm.base_url', value: baseUrl, origin: 'environment' });
  return out;
}

function warningKey(w: ToolWarning): string {
  switch (w.code) {
    case 'confirm_tag_unmatched':
      return 'harness.confirm_tags';
    case 'tool_search_unavailable':
      return 'llm.no_tool_search';
    case 'global_flag_clash':
      return 'global_flags';
    case 'unknown_ai_tag':
    case 'behavior_conflict':
    case 'unusable_schema':
    case 'invalid_name':
      return 'application_path';
    default: {
      const never: never = w.code;
      return never;
    }
  }
}

function infoTools(tools: AssembledTools, confirmTags: readonly string[]): InfoTool[] {
  const definitions = tools.toolSet.definitions();
  return tools.toolSet.entries.map((e, i) => {
    const t = e.tool;
    const gate = t.capabilities.gate === null ? { gated: true, trigger: '(cannot report a gate)' } : gateOf(t, confirmTags);
    return {
      name: t.name,
      source: e.source,
      ...(e.label === undefined ? {} : { label: e.label }),
      kind: t.kind,
      description: t.description,
      tags: [...t.capabilities.tags],
      gated: gate.gated,
      ...(gate.trigger === '' ? {} : { trigger: gate.trigger }),
      deferred: e.deferred,
      ...(t instanceof FuncTool && t.origin !== undefined && t.origin.remoteName !== t.name ? { remoteName: t.origin.remoteName } : {}),
      ...(t instanceof FuncTool && t.origin?.kind === 'remote' && t.origin.delegation !== undefined
        ? { delegation: { agent: t.origin.agent, transport: t.origin.delegation, endpoint: t.origin.endpoint ?? '' } }
        : {}),
      definition: definitions[i] as ToolDef,
      sandbox: toolSandbox(t),
    };
  });
}

function toolSearch(runtime: Runtime): string {
  const config = runtime.config;
  if (config.llm.noToolSearch) return 'disabled (llm.no_tool_search)';
  const facts = runtime.facts;
  if (facts === undefined) return `unknown (provider "${config.llm.provider}" is not available)`;
  if (!facts.toolSearch)
    return `harness (provider "${config.llm.provider}" has none; past 10 tools the built-in tool_search loads deferred definitions)`;
  return 'enabled (definitions are deferred once more than 10 tools are available)';
}

/** The Tasks rows; a store the configuration describes wrongly is shown with the problem, not refused. */
function taskRows(describe: typeof DescribeTaskStore, config: Config, env: Io['env']): InfoRow[] {
  try {
    return [...describe(config.tasks, { env, cwd: config.baseDir })];
  } catch (err) {
    return [
      { label: 'Backend', value: config.tasks.backend },
      { label: 'Problem', value: err instanceof Error ? err.message : String(err) },
    ];
  }
}

/** Builds the report `fisk info` prints from the runtime and the tools a run of it would get. */
export async function buildInfoReport(runtime: Runtime, env: Io['env'], tools: AssembledTools): Promise<InfoReport> {
  const config = runtime.config;
  const showTasks = config.expose.jobs !== undefined || [...config.present].some((k) => k === 'tasks' || k.startsWith('tasks.'));
  const [memoryBackends, { telemetryInfo }, taskStores, slackSettings] = await Promise.all([
    config.harness.memory.enabled ? import('../../memory/backends.js') : undefined,
    import('../../host/telemetry-settings.js'),
    showTasks ? import('../../tasks/index.js') : undefined,
    // the settings alone: the Slack client itself is loaded only by fisk serve
    config.expose.slack === undefined ? undefined : import('../../serve/slack/settings.js'),
  ]);
  const toolWarnings = tools.warnings.map((w) => ({ key: warningKey(w), message: w.message }));
  const runtimeWarnings = [...runtime.notes, ...tools.runtimeNotes]
    .filter((n) => n.level === 'warning')
    .map((n) => ({ key: n.key ?? '', message: n.message }));
  const telemetry = telemetryInfo(config, env);
  return {
    config: config.source,
    identity: { name: config.identity, source: config.identitySource },
    model:
      config.llm.model === ''
        ? null
        : {
            provider: config.llm.provider,
            model: config.llm.model,
            thinking: config.llm.thinking,
            toolSearch: toolSearch(runtime),
            ...modelAccess(runtime, env),
          },
    settings: describeSettings(config, environmentOverrides(runtime, env)),
    warnings: [...configWarnings(config), ...toolWarnings, ...runtimeWarnings, ...telemetry.warnings],
    prompt: config.systemPrompt,
    system: systemBlocks(config.systemPrompt, config.harness.humanInTheLoop, [...tools.notes, ...tools.volatileNotes]).map((b) => b.text),
    tools: infoTools(tools, config.harness.confirmTags),
    sandbox: runtimeSandbox(runtime),
    toolReach: describeToolReach(tools.policy, tools.deferral, tools.toolSet.entries),
    filtered: tools.filtered,
    globalFlags: runtime.application?.globalFlags ?? null,
    telemetry: telemetry.rows,
    memory:
      memoryBackends !== undefined
        ? memoryBackends.memoryInfoRows(config.harness.memory, {
            identity: config.identity,
            natsContext: config.natsContext,
            baseDir: config.baseDir,
          })
        : null,
    tasks: taskStores !== undefined ? taskRows(taskStores.describeTaskStore, config, env) : null,
    slack: slackSettings === undefined || config.expose.slack === undefined ? null : slackSettings.slackInfoRows(config.expose.slack, env),
  };
}

/** Text from the application reaches the terminal only without control sequences. */
function firstLine(text: string, max: number): string {
  const line = stripControl(text.split('\n')[0] ?? '');
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function table(rows: readonly (readonly string[])[]): string[] {
  const widths = rows[0]?.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length))) ?? [];
  return rows.map((r) => `  ${r.map((cell, c) => (c === r.length - 1 ? cell : cell.padEnd(widths[c] ?? 0))).join('  ')}`.trimEnd());
}

function renderTools(report: InfoReport, all: boolean, out: Io['out']): void {
  println(out);
  println(out, `Tools (${report.tools.length})`);
  if (report.tools.length === 0) {
    println(out, '  (none: the model is sent no tools)');
  } else {
    // the Sandbox column only where a sandbox was asked for, so an unsandboxed listing reads as it always has
    const boxed = report.sandbox !== null;
    const rows = [['Tool', 'Source', 'Gated', 'Deferred', ...(boxed ? ['Sandbox'] : []), 'Description', 'Tags']];
    for (const tool of report.tools) {
      rows.push([
        tool.name,
        tool.label === undefined ? tool.source : `${tool.source}:${tool.label}`,
        tool.gated ? `yes (${tool.trigger ?? ''})` : 'no',
        tool.deferred ? 'yes' : 'no',
        ...(boxed ? [stripControl(sandboxCell(tool.sandbox))] : []),
        firstLine(tool.description, 50),
        stripControl(tool.tags.join(', ')),
      ]);
    }
    for (const line of table(rows)) println(out, line);
  }
  println(out, `  Reach: ${report.toolReach.summary}`);
  const delegations = report.tools.filter((t) => t.delegation !== undefined);
  if (delegations.length > 0) {
    println(out);
    println(out, `Delegation tools (${delegations.length}; each hands a whole task to another agent)`);
    const rows = [['Tool', 'Agent', 'Transport', 'Gated', 'Where']];
    for (const tool of delegations) {
      const delegation = tool.delegation;
      if (delegation === undefined) continue;
      rows.push([
        tool.name,
        stripControl(delegation.agent),
        delegation.transport,
        tool.gated ? `yes (${tool.trigger ?? ''})` : 'no',
        stripControl(delegation.endpoint),
      ]);
    }
    for (const line of table(rows)) println(out, line);
  }
  const renamed = report.tools.filter((t) => t.remoteName !== undefined);
  if (renamed.length > 0) {
    println(out);
    println(out, `Renamed for the model (${renamed.length}; calls use the name where the tool comes from)`);
    const rows = [['Tool', 'Source', 'Its own name']];
    for (const tool of renamed)
      rows.push([
        tool.name,
        tool.label === undefined ? tool.source : `${tool.source}:${tool.label}`,
        JSON.stringify(stripControl(tool.remoteName ?? '')),
      ]);
    for (const line of table(rows)) println(out, line);
  }
  if (report.filtered.length > 0) {
    println(out);
    if (all) {
      println(out, `Filtered tools (${report.filtered.length})`);
      const rows = [['Tool', 'Source', 'Reason', 'Detail']];
      for (const filtered of report.filtered)
        rows.push([
          filtered.name,
          filtered.label === undefined ? filtered.source : `${filtered.source}:${filtered.label}`,
          filtered.reason,
          stripControl(filtered.detail),
        ]);
      for (const line of table(rows)) println(out, line);
    } else {
      println(out, `${counted(report.filtered.length, 'tool')} filtered out; list them with --all`);
    }
  }
  if (report.globalFlags !== null && report.globalFlags.length > 0) {
    println(out);
    println(out, 'Exposable application global flags (global_flags)');
    for (const flag of report.globalFlags) {
      const marks = [flag.exposed ? 'exposed' : '', flag.required ? 'required' : ''].filter((m) => m !== '');
      println(
        out,
        stripControl(`  --${flag.name}${marks.length === 0 ? '' : ` [${marks.join(', ')}]`}${flag.help === '' ? '' : `  ${flag.help}`}`),
      );
    }
  }
}

function renderValue(v: Setting['value']): string {
  // an empty text is as unset as a missing one, and a blank column would read as a rendering fault
  if (v === null || v === '') return '(unset)';
  if (Array.isArray(v)) return v.length === 0 ? '[]' : v.join(', ');
  return String(v);
}

/** Prints the report as the text `fisk info` shows. */
export function renderText(report: InfoReport, all: boolean, io: Io): void {
  const out = io.out;
  for (const warning of report.warnings) println(io.err, stripControl(`warning: ${warning.key}: ${warning.message}`));
  println(
    out,
    `Agent ${report.identity.name} (identity ${report.identity.source === 'explicit' ? 'set in the file' : report.identity.source === 'application' ? 'taken from the application name' : 'default'})`,
  );
  println(out);
  println(out, 'Model');
  if (report.model === null) {
    println(out, '  (no llm.model set: this configuration cannot run an agent loop)');
  } else {
    println(out, `  Provider     ${report.model.provider}`);
    println(out, `  Model        ${report.model.model}`);
    println(out, `  Thinking     ${report.model.thinking}`);
    println(out, `  Tool search  ${report.model.toolSearch}`);
    if (report.model.endpoint !== undefined) println(out, `  Endpoint     ${report.model.endpoint.url} (${report.model.endpoint.from})`);
    if (report.model.apiKey !== undefined) println(out, `  API key      ${apiKeyLine(report.model.apiKey)}`);
  }
  println(out);
  println(out, 'Settings');
  const width = Math.max(...report.settings.map((s) => s.key.length), ...report.telemetry.map((r) => r.key.length));
  for (const setting of report.settings) {
    println(out, `  ${setting.key.padEnd(width)}  ${renderValue(setting.value)}  [${setting.origin}]`);
  }
  for (const row of report.telemetry) println(out, `  ${row.key.padEnd(width)}  ${row.value}  [${row.origin}]`);
  if (report.memory !== null) {
    println(out);
    println(out, 'Memory');
    const width = Math.max(...report.memory.map((r) => r.label.length));
    for (const row of report.memory) println(out, `  ${row.label.padEnd(width)}  ${row.value}`);
  }
  if (report.tasks !== null) {
    println(out);
    println(out, 'Tasks');
    const width = Math.max(...report.tasks.map((r) => r.label.length));
    for (const row of report.tasks) println(out, `  ${row.label.padEnd(width)}  ${row.value}`);
  }
  if (report.slack !== null) {
    println(out);
    println(out, 'Slack');
    const width = Math.max(...report.slack.map((r) => r.label.length));
    for (const row of report.slack) println(out, `  ${row.label.padEnd(width)}  ${stripControl(row.value)}`);
  }
  renderSandbox(report.sandbox, out);
  renderTools(report, all, out);
  println(out);
  println(out, 'System prompt (exactly as the model receives it)');
  if (report.prompt.trim() === '') println(out, '  (no system_prompt defined)');
  report.system.forEach((segment, i) => {
    if (i > 0) println(out, '  ---');
    for (const line of stripControl(segment).replace(/\n+$/, '').split('\n')) println(out, `  ${line}`);
  });
}
