/**
 * A structural check of the application model a program prints for `--fisk-introspect`, at the
 * edge, so nothing downstream trusts raw JSON. The model's types belong to `@fisk-ai/app`, the
 * package that writes the document.
 */
import type { ApplicationModel, ArgModel, CommandModel, FlagModel } from '@fisk-ai/app';
import { jsonValueExceeds } from '../../util/json-depth.js';
import { ToolkitError } from '../errors.js';

export type { ApplicationModel, ArgModel, CommandModel, FlagModel } from '@fisk-ai/app';

type Json = Record<string, unknown>;

/**
 * The deepest nesting accepted in an introspection document, counted as in its text: the document
 * is `1`, a top-level command `3`, a command nested in it `5`, and a schema adds its own depth to its
 * command's. Decoding never recurses; this bounds what walks the model afterwards.
 */
export const MODEL_MAX_DEPTH = 256;

function tooDeep(): never {
  throw new ToolkitError(
    'introspect',
    `the introspection document nests deeper than ${MODEL_MAX_DEPTH} levels of arrays and objects; no command tree or schema needs that, so it is refused`,
  );
}

/**
 * Reads one place in the document. Where it is, for a message, is spelled out only when something
 * fails there: a document of thousands of commands would otherwise build a path string for each.
 */
class Reader {
  constructor(
    readonly parent: Reader | undefined,
    readonly child: string,
  ) {}

  get where(): string {
    return this.parent === undefined ? this.child : `${this.parent.where}${this.child}`;
  }

  fail(what: string): never {
    throw new ToolkitError('introspect', `the introspection document is malformed at ${this.where}: ${what}`);
  }

  obj(v: unknown): Json {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) this.fail('expected an object');
    return v as Json;
  }

  str(o: Json, key: string): string {
    const v = o[key];
    if (v === undefined || v === null) return '';
    if (typeof v !== 'string') this.fail(`${key} must be a string`);
    return v;
  }

  bool(o: Json, key: string): boolean {
    const v = o[key];
    if (v === undefined || v === null) return false;
    if (typeof v !== 'boolean') this.fail(`${key} must be a boolean`);
    return v;
  }

  strs(o: Json, key: string): string[] {
    const v = o[key];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) this.fail(`${key} must be a list of strings`);
    for (let i = 0; i < v.length; i++) if (typeof v[i] !== 'string') this.fail(`${key} must be a list of strings`);
    return v as string[];
  }

  list(o: Json, key: string): unknown[] {
    const v = o[key];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) this.fail(`${key} must be a list`);
    return v as unknown[];
  }

  at(child: string): Reader {
    return new Reader(this, child);
  }
}

function strings(v: unknown): boolean {
  if (!Array.isArray(v)) return false;
  for (let i = 0; i < v.length; i++) if (typeof v[i] !== 'string') return false;
  return true;
}

const FLAG_KEYS = 12;
const ARG_KEYS = 8;

/**
 * Whether a decoded flag holds exactly the model's fields, each present and of its type, as a
 * conforming writer prints every one: such a flag is the model's flag as it is, not copied.
 */
function completeFlag(o: Json): boolean {
  return (
    typeof o['name'] === 'string' &&
    o['name'] !== '' &&
    typeof o['help'] === 'string' &&
    typeof o['short'] === 'string' &&
    strings(o['default']) &&
    typeof o['envar'] === 'string' &&
    typeof o['place_holder'] === 'string' &&
    typeof o['required'] === 'boolean' &&
    typeof o['hidden'] === 'boolean' &&
    typeof o['boolean'] === 'boolean' &&
    typeof o['negatable'] === 'boolean' &&
    typeof o['cumulative'] === 'boolean' &&
    strings(o['completions']) &&
    Object.keys(o).length === FLAG_KEYS
  );
}

/** As `completeFlag`, for a positional argument. */
function completeArg(o: Json): boolean {
  return (
    typeof o['name'] === 'string' &&
    o['name'] !== '' &&
    typeof o['help'] === 'string' &&
    strings(o['default']) &&
    typeof o['envar'] === 'string' &&
    typeof o['place_holder'] === 'string' &&
    typeof o['required'] === 'boolean' &&
    typeof o['hidden'] === 'boolean' &&
    typeof o['cumulative'] === 'boolean' &&
    Object.keys(o).length === ARG_KEYS
  );
}

function readFlag(r: Reader, v: unknown): FlagModel {
  const o = r.obj(v);
  if (completeFlag(o)) return o as unknown as FlagModel;
  const name = r.str(o, 'name');
  if (name === '') r.fail('a flag has no name');
  return {
    name,
    help: r.str(o, 'help'),
    short: r.str(o, 'short'),
    default: r.strs(o, 'default'),
    envar: r.str(o, 'envar'),
    place_holder: r.str(o, 'place_holder'),
    required: r.bool(o, 'required'),
    hidden: r.bool(o, 'hidden'),
    boolean: r.bool(o, 'boolean'),
    negatable: r.bool(o, 'negatable'),
    cumulative: r.bool(o, 'cumulative'),
    completions: r.strs(o, 'completions'),
  };
}

function readArg(r: Reader, v: unknown): ArgModel {
  const o = r.obj(v);
  if (completeArg(o)) return o as unknown as ArgModel;
  const name = r.str(o, 'name');
  if (name === '') r.fail('an argument has no name');
  return {
    name,
    help: r.str(o, 'help'),
    default: r.strs(o, 'default'),
    envar: r.str(o, 'envar'),
    place_holder: r.str(o, 'place_holder'),
    required: r.bool(o, 'required'),
    hidden: r.bool(o, 'hidden'),
    cumulative: r.bool(o, 'cumulative'),
  };
}

/** A command's schema, kept as decoded; `depth` is its command's, so the schema's own may add at most the rest. */
function readSchema(r: Reader, o: Json, key: string, depth: number): Record<string, unknown> | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) return r.at(`.${key}`).obj(v);
  if (jsonValueExceeds(v, MODEL_MAX_DEPTH - depth)) tooDeep();
  return v as Record<string, unknown>;
}

/** The keys a command may hold: the model's ten fields and its two optional schemas. */
const COMMAND_KEYS = 10;

/**
 * Reads a list of flags, arguments or commands, keeping the decoded array itself when every
 * element is kept as decoded (a conforming writer's document is then not copied at all).
 */
function readList<T>(r: Reader, o: Json, key: string, read: (v: unknown) => T): readonly T[] {
  const list = r.list(o, key);
  let out: T[] | undefined;
  for (let i = 0; i < list.length; i++) {
    const v = list[i];
    const got = read(v);
    if (out !== undefined) out.push(got);
    else if ((got as unknown) !== v) {
      out = list.slice(0, i) as T[];
      out.push(got);
    }
  }
  return out ?? (list as T[]);
}

/**
 * Whether a decoded command holds the model's fields and nothing else, each of its type, so it can
 * be kept as decoded once its flags, arguments, subcommands and schemas are too.
 */
function completeCommand(o: Json): boolean {
  // a schema counts only as an object (readSchema refused any other value but null, and a null
  // one is left out of the copy, so a command holding one is copied)
  let keys = COMMAND_KEYS;
  if (typeof o['restricted_schema'] === 'object' && o['restricted_schema'] !== null) keys++;
  if (typeof o['schema'] === 'object' && o['schema'] !== null) keys++;
  return (
    typeof o['help'] === 'string' &&
    typeof o['help_long'] === 'string' &&
    typeof o['hidden'] === 'boolean' &&
    typeof o['default'] === 'boolean' &&
    strings(o['aliases']) &&
    strings(o['tags']) &&
    Object.keys(o).length === keys
  );
}

/** Reads a command found at `depth` (the document's text would have it that deep). */
function readCommand(reader: Reader, value: unknown, depth: number): CommandModel {
  if (depth > MODEL_MAX_DEPTH) tooDeep();
  const decoded = reader.obj(value);
  const name = reader.str(decoded, 'name');
  if (name === '') reader.fail('a command has no name');
  const here = reader.at(` ${name}`);
  const restricted = readSchema(here, decoded, 'restricted_schema', depth);
  const schema = readSchema(here, decoded, 'schema', depth);
  const flags = readList(here, decoded, 'flags', (f) => readFlag(here, f));
  const args = readList(here, decoded, 'args', (a) => readArg(here, a));
  const commands = readList(here, decoded, 'commands', (c) => readCommand(here, c, depth + 2));
  // a command written whole, its lists kept as decoded too, needs no copy
  if (flags === decoded['flags'] && args === decoded['args'] && commands === decoded['commands'] && completeCommand(decoded))
    return decoded as unknown as CommandModel;
  const command: { -readonly [K in keyof CommandModel]: CommandModel[K] } = {
    name,
    aliases: here.strs(decoded, 'aliases'),
    help: here.str(decoded, 'help'),
    help_long: here.str(decoded, 'help_long'),
    hidden: here.bool(decoded, 'hidden'),
    default: here.bool(decoded, 'default'),
    tags: here.strs(decoded, 'tags'),
    flags,
    args,
    commands,
  };
  // assigned rather than spread in: this runs once for each of thousands of commands
  if (restricted !== undefined) command.restricted_schema = restricted;
  if (schema !== undefined) command.schema = schema;
  return command;
}

/**
 * Checks decoded introspection JSON and returns it typed, or throws naming the bad field. What it
 * keeps of the document (commands, and their schemas as decoded) nests no deeper than
 * `MODEL_MAX_DEPTH`; what it does not keep is never walked.
 */
export function readApplicationModel(value: unknown): ApplicationModel {
  const r = new Reader(undefined, 'the application');
  const o = r.obj(value);
  return {
    name: r.str(o, 'name'),
    help: r.str(o, 'help'),
    version: r.str(o, 'version'),
    author: r.str(o, 'author'),
    flags: r.list(o, 'flags').map((f) => readFlag(r.at(' flags'), f)),
    args: r.list(o, 'args').map((a) => readArg(r.at(' args'), a)),
    commands: r.list(o, 'commands').map((c) => readCommand(r.at(':'), c, 3)),
  };
}
