/**
 * From an application model to command tools: hidden commands and their subtrees are skipped,
 * grouping nodes are not tools, and each leaf becomes a tool named by its path joined with `_`.
 * A grouping node's restricting tags (`ai:deny`, `ai:confirm`, `ai:no_defer` and the operator's
 * confirm tags) pass down to every leaf under it, so `db` tagged `ai:deny` denies `db_drop`.
 */
import { ToolkitError } from '../errors.js';
import { isValidToolName } from '../names.js';
import type { FilteredTool, ToolWarning } from '../source.js';
import { FiskCommandTool, TagFacts } from './command-tool.js';
import type { CommandToolSpec } from './command-tool.js';
import { withGlobals } from './global-flags.js';
import type { ApplicationModel, CommandModel, FlagModel } from './model.js';
import { reportTool, toolPolicy } from '../sandbox/policy.js';
import type { SandboxPolicy, SandboxSettings } from '../sandbox/policy.js';
import type { SandboxReport } from '../sandbox/report.js';

/** What building command tools needs besides the model. */
export interface BuildToolsOptions {
  readonly binary: string;
  /** Globals to offer on every command (already resolved against the model). */
  readonly globals: readonly FlagModel[];
  readonly confirmTags: readonly string[];
  readonly credentialEnvNames: readonly string[];
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The runtime's sandbox; each tool's policy comes from its own name, never from its tags. */
  readonly sandbox?: SandboxSettings;
}

function sandboxFor(settings: SandboxSettings | undefined, name: string): { sandbox?: { policy: SandboxPolicy; report: SandboxReport } } {
  if (settings === undefined || !settings.enabled) return {};
  return { sandbox: { policy: toolPolicy(settings, name), report: reportTool(settings, name) } };
}

/** The tags a grouping node passes to its leaves: those that restrict, never those that grant. */
const INHERITED_TAGS: readonly string[] = ['ai:deny', 'ai:confirm', 'ai:no_defer'];

interface Leaf {
  readonly path: string[];
  readonly cmd: CommandModel;
  /** The leaf's own tags, then those inherited from its groups, without repeats. */
  readonly tags: readonly string[];
}

function leaves(
  commands: readonly CommandModel[],
  prefix: readonly string[],
  inherited: readonly string[],
  passes: (tag: string) => boolean,
  out: Leaf[],
): void {
  for (const cmd of commands) {
    if (cmd.hidden) continue;
    const path = prefix.concat(cmd.name);
    if (cmd.commands.length > 0) {
      const passed = cmd.tags.filter((t) => passes(t) && !inherited.includes(t));
      leaves(cmd.commands, path, passed.length === 0 ? inherited : [...inherited, ...passed], passes, out);
    } else {
      const extra = inherited.length === 0 ? inherited : inherited.filter((t) => !cmd.tags.includes(t));
      out.push({ path, cmd, tags: extra.length === 0 ? cmd.tags : [...cmd.tags, ...extra] });
    }
  }
}

/**
 * The schema a command tool offers, made when it is first asked for: the leaf's restricted schema
 * with the globals merged in and optional parameters marked. The top level and the properties
 * made here are frozen; what they share with the decoded document below them is left as decoded
 * (nothing writes to it, and freezing each of its objects cost a large application more than
 * building its tools).
 */
function commandSchema(restricted: Record<string, unknown>, globals: readonly FlagModel[]): () => Readonly<Record<string, unknown>> {
  return () => {
    // markOptional copies the top level itself: merging no globals needs no copy of its own
    const schema = markOptional(globals.length === 0 ? restricted : withGlobals(restricted, globals));
    const props = schema['properties'];
    if (props !== restricted['properties'] && typeof props === 'object' && props !== null) Object.freeze(props);
    return Object.freeze(schema);
  };
}

/**
 * A shallow copy of a decoded object. `Object.assign` is several times faster than a spread in
 * code that runs once per command, but it would set the prototype for a `__proto__` key, which a
 * decoded document can hold as a plain key: such an object is spread instead.
 */
function shallowCopy(o: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.prototype.hasOwnProperty.call(o, '__proto__') ? { ...o } : Object.assign({}, o);
}

/** Marks each parameter the schema does not require as optional in its description, for the model. */
function markOptional(schema: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> {
  const props = schema['properties'];
  if (typeof props !== 'object' || props === null || Array.isArray(props)) return schema;
  const listed = schema['required'];
  const required: readonly unknown[] = Array.isArray(listed) ? listed : [];
  const marked: Record<string, unknown> = {};
  const names = Object.keys(props);
  for (let i = 0; i < names.length; i++) {
    const name = names[i] as string;
    const value = (props as Record<string, unknown>)[name];
    if (typeof value !== 'object' || value === null || Array.isArray(value) || required.includes(name)) {
      marked[name] = value;
      continue;
    }
    const p = value as Record<string, unknown>;
    const d = typeof p['description'] === 'string' ? p['description'].trim() : '';
    const copy = shallowCopy(p);
    copy['description'] = d === '' ? '(optional)' : `${d} (optional)`;
    marked[name] = Object.freeze(copy);
  }
  const out = shallowCopy(schema);
  out['properties'] = marked;
  return out;
}

/** The description the model gets: the long help alone when it already says what the short one does. */
function describe(cmd: CommandModel): string {
  const short = cmd.help.trim();
  const long = cmd.help_long.trim();
  if (long === '' || long === short) return cmd.help;
  if (short === '' || long.includes(short)) return cmd.help_long;
  return `${cmd.help}\n\n${cmd.help_long}`;
}

/**
 * Builds every leaf's tool. Fails the whole load (`ToolkitError`) when a leaf lacks its restricted
 * schema or when two paths make one name; a leaf whose name the model APIs refuse, or whose schema
 * is not an object, is skipped with a warning and listed as unusable.
 */
export function buildCommandTools(
  model: ApplicationModel,
  opts: BuildToolsOptions,
): { tools: FiskCommandTool[]; warnings: ToolWarning[]; unusable: FilteredTool[] } {
  const found: Leaf[] = [];
  // a deliberate departure from grouping nodes that carry nothing: the conservative reading
  const passes = (tag: string): boolean => INHERITED_TAGS.includes(tag) || opts.confirmTags.includes(tag);
  leaves(model.commands, [], [], passes, found);
  const tools: FiskCommandTool[] = [];
  const warnings: ToolWarning[] = [];
  const unusable: FilteredTool[] = [];
  const seen = new Map<string, readonly string[]>();
  const tagFacts = new TagFacts(opts.confirmTags);
  const sandboxed = opts.sandbox !== undefined && opts.sandbox.enabled;
  for (const { path, cmd, tags } of found) {
    const name = path.join('_');
    // how a message names the command: spelled out only for one
    const spoken = (): string => path.join(' ');
    if (cmd.restricted_schema === undefined) {
      throw new ToolkitError(
        'introspect',
        `command "${spoken()}" has no precomputed restricted schema; rebuild the application with a current fisk (v0.9 or later) so every command carries one`,
      );
    }
    if (!isValidToolName(name)) {
      // one badly named command is skipped, never the whole application
      const detail = `the tool name ${JSON.stringify(name)} is one model APIs refuse (letters, digits, "_" and "-", at most 64)`;
      unusable.push({ name, source: 'application', reason: 'invalid_name', detail });
      warnings.push({
        code: 'invalid_name',
        tool: name,
        message: `command "${spoken()}" is not offered as a tool: ${detail}; rename the command or hide it`,
      });
      continue;
    }
    const prior = seen.get(name);
    if (prior !== undefined) {
      throw new ToolkitError(
        'collision',
        `tool name ${JSON.stringify(name)} is claimed by both application commands "${prior.join(' ')}" and "${spoken()}"; rename or hide one`,
      );
    }
    seen.set(name, path);
    const restricted = cmd.restricted_schema;
    const rootType = restricted['type'];
    if (rootType !== 'object') {
      // model APIs take only an object as a tool's input: offering this one would fail every request
      const detail = `its restricted schema's root is ${rootType === undefined ? 'untyped' : `of type ${JSON.stringify(rootType)}`}, not an object`;
      unusable.push({ name, source: 'application', reason: 'unusable_schema', detail });
      warnings.push({
        code: 'unusable_schema',
        tool: name,
        message: `command "${spoken()}" is not offered as a tool: ${detail}; fix its arguments in the application`,
      });
      continue;
    }
    let globals = opts.globals;
    if (globals.length > 0) {
      const own = new Set([...cmd.flags.map((f) => f.name), ...cmd.args.map((a) => a.name)]);
      globals = opts.globals.filter((g) => !own.has(g.name));
      for (const globalFlag of opts.globals) {
        if (own.has(globalFlag.name)) {
          warnings.push({
            code: 'global_flag_clash',
            tool: name,
            message: `global flag ${JSON.stringify(globalFlag.name)} is not offered on ${name}: the command has its own ${JSON.stringify(globalFlag.name)}`,
          });
        }
      }
    }
    const spec: { -readonly [K in keyof CommandToolSpec]: CommandToolSpec[K] } = {
      binary: opts.binary,
      name,
      description: describe(cmd),
      tags,
      inputSchema: commandSchema(restricted, globals),
      shape: { path, globals, flags: cmd.flags.some((f) => f.hidden) ? cmd.flags.filter((f) => !f.hidden) : cmd.flags, args: cmd.args },
      confirmTags: opts.confirmTags,
      credentialEnvNames: opts.credentialEnvNames,
      tagFacts,
    };
    // assigned rather than spread in: this runs once for each of thousands of commands
    if (opts.env !== undefined) spec.env = opts.env;
    if (sandboxed) Object.assign(spec, sandboxFor(opts.sandbox, name));
    tools.push(new FiskCommandTool(spec));
  }
  return { tools, warnings, unusable };
}
