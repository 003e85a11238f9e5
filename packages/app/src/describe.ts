/**
 * A commander program described as a fisk application model, with the restricted schema fisk-ai
 * requires on every leaf precomputed from the options and arguments.
 */
import type { ApplicationModel, ArgModel, CommandModel, FlagModel } from './model.js';
import { isHiddenFromTools, tagsFor, typeFor } from './annotate.js';
import type { ValueType } from './annotate.js';
import type { ArgumentLike, CommandLike, OptionLike } from './command-like.js';
import { commanderHidden } from './command-like.js';

/** Options the framework adds; they are never the application's own. */
const FRAMEWORK = new Set(['help', 'version', 'fisk-introspect']);

/** Go duration syntax, as fisk applications take durations. */
export const DURATION_PATTERN = '^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$';

function text(v: unknown): string {
  return typeof v === 'string'
    ? v
    : typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint'
      ? String(v)
      : JSON.stringify(v);
}

function defaults(v: unknown): string[] {
  if (v === undefined || v === null) return [];
  if (Array.isArray(v)) return v.map(text);
  return [text(v)];
}

function valueSchema(type: ValueType, choices: readonly string[] | undefined): Record<string, unknown> {
  if (choices !== undefined && choices.length > 0) return { type: 'string', enum: [...choices] };
  switch (type) {
    case 'string':
      return { type: 'string' };
    case 'integer':
      return { type: 'integer' };
    case 'number':
      return { type: 'number' };
    case 'duration':
      return { type: 'string', pattern: DURATION_PATTERN };
    default: {
      const never: never = type;
      return never;
    }
  }
}

function withDescription(schema: Record<string, unknown>, description: string): Record<string, unknown> {
  return description === '' ? schema : { ...schema, description };
}

/** One option as a fisk flag plus its schema property, or nothing for framework and hidden options. */
interface FlagEntry {
  readonly flag: FlagModel;
  readonly property: Record<string, unknown> | undefined;
}

/**
 * Commander options as fisk flags. A `--x`/`--no-x` pair becomes one negatable switch named `x`;
 * a lone `--no-x` stays a switch named `no-x`, since `--x` would not parse.
 */
function flagsOf(options: readonly OptionLike[]): FlagEntry[] {
  const out: FlagEntry[] = [];
  const positives = new Set(options.filter((o) => !o.negate && o.isBoolean()).map((o) => o.attributeName()));
  for (const option of options) {
    const long = option.long?.replace(/^--/, '');
    if (long === undefined || FRAMEWORK.has(long)) continue;
    if (option.negate && positives.has(option.attributeName())) continue; // folded into its positive switch
    const isSwitch = option.isBoolean() || option.negate;
    const negatable = !option.negate && isSwitch && options.some((n) => n.negate && n.attributeName() === option.attributeName());
    const flag: FlagModel = {
      name: long,
      help: option.description,
      short: option.short?.replace(/^-/, '') ?? '',
      default: isSwitch && option.defaultValue === undefined ? [] : defaults(option.defaultValue),
      envar: option.envVar ?? '',
      place_holder: '',
      required: option.mandatory,
      hidden: option.hidden,
      boolean: isSwitch,
      negatable,
      cumulative: option.variadic,
      completions: option.argChoices === undefined ? [] : [...option.argChoices],
    };
    let property: Record<string, unknown> | undefined;
    if (!option.hidden) {
      const item = valueSchema(typeFor(option), option.argChoices);
      property = withDescription(
        isSwitch ? { type: 'boolean' } : option.variadic ? { type: 'array', items: item } : item,
        option.description,
      );
    }
    out.push({ flag, property });
  }
  return out;
}

function argsOf(args: readonly ArgumentLike[]): { arg: ArgModel; property: Record<string, unknown> }[] {
  return args.map((a) => {
    const item = valueSchema(typeFor(a), a.argChoices);
    return {
      arg: {
        name: a.name(),
        help: a.description,
        default: defaults(a.defaultValue),
        envar: '',
        place_holder: '',
        required: a.required,
        hidden: false,
        cumulative: a.variadic,
      },
      property: withDescription(a.variadic ? { type: 'array', items: item } : item, a.description),
    };
  });
}

function describeCommand(cmd: CommandLike): CommandModel {
  const children = cmd.commands.map(describeCommand);
  const flags = flagsOf(cmd.options);
  const args = argsOf(cmd.registeredArguments);
  const base = {
    name: cmd.name(),
    aliases: cmd.aliases(),
    help: cmd.summary() === '' ? cmd.description() : cmd.summary(),
    help_long: cmd.summary() === '' ? '' : cmd.description(),
    hidden: commanderHidden(cmd) || isHiddenFromTools(cmd),
    default: false,
    tags: [...tagsFor(cmd)],
    flags: flags.map((f) => f.flag),
    args: args.map((a) => a.arg),
    commands: children,
  };
  if (children.length > 0) return base;
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const flag of flags) {
    if (flag.property === undefined) continue;
    properties[flag.flag.name] = flag.property;
    if (flag.flag.required) required.push(flag.flag.name);
  }
  for (const arg of args) {
    properties[arg.arg.name] = arg.property;
    if (arg.arg.required) required.push(arg.arg.name);
  }
  const restricted = { type: 'object', properties, required, additionalProperties: false };
  return { ...base, restricted_schema: restricted, schema: restricted };
}

/** Who wrote the application and which version it is, for the model's header. */
export interface ApplicationMeta {
  readonly version?: string;
  readonly author?: string;
}

/**
 * Describes a commander program as the model `--fisk-introspect` prints: the program's own
 * options are the global flags, subcommands are the command tree, and every leaf carries its
 * restricted schema.
 */
export function describeApplication(program: CommandLike, meta: ApplicationMeta = {}): ApplicationModel {
  return {
    name: program.name(),
    help: program.description(),
    version: meta.version ?? '',
    author: meta.author ?? '',
    flags: flagsOf(program.options).map((f) => f.flag),
    args: argsOf(program.registeredArguments).map((a) => a.arg),
    commands: program.commands.map(describeCommand),
  };
}
