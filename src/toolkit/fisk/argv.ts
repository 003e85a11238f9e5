/**
 * Model arguments to argv, by fisk's rules: flags in declared order as `--name=value`, then `--`
 * and the positionals. The result goes to `spawn` as a list; no shell ever sees it.
 */
import { JsonNumber, parseExactJson } from './json-exact.js';
import type { ExactJson } from './json-exact.js';
import type { ArgModel, FlagModel } from './model.js';

/** A model argument fisk's rules cannot turn into argv; the message is for the model. */
export class ArgvError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ArgvError';
  }
}

/** What rendering needs to know about one command. */
export interface CommandShape {
  /** The command path words, e.g. `['stream', 'ls']`. */
  readonly path: readonly string[];
  /** Exposed global flags for this command, placed after the path and before its own flags. */
  readonly globals: readonly FlagModel[];
  readonly flags: readonly FlagModel[];
  readonly args: readonly ArgModel[];
}

function scalar(name: string, v: ExactJson): string {
  if (v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (v instanceof JsonNumber) return v.text;
  throw new ArgvError(
    `argument ${JSON.stringify(name)} must be a string, number or boolean here, not ${Array.isArray(v) ? 'a list' : 'an object'}`,
  );
}

function isRecord(v: ExactJson): v is { readonly [key: string]: ExactJson } {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof JsonNumber);
}

function defaultsTrue(flag: FlagModel): boolean {
  return flag.default.some((d) => d.toLowerCase() === 'true');
}

function renderFlag(flag: FlagModel, v: ExactJson, out: string[]): void {
  const name = flag.name;
  if (flag.boolean) {
    if (typeof v !== 'boolean') throw new ArgvError(`flag ${JSON.stringify(name)} is a switch and takes true or false`);
    if (flag.negatable) out.push(v ? `--${name}` : `--no-${name}`);
    else if (v) out.push(`--${name}`);
    else if (defaultsTrue(flag)) {
      throw new ArgvError(`flag ${JSON.stringify(name)} is on by default and cannot be switched off`);
    }
    return;
  }
  if (Array.isArray(v)) {
    for (const e of v as readonly ExactJson[]) out.push(`--${name}=${scalar(name, e)}`);
    return;
  }
  if (isRecord(v)) {
    for (const k of Object.keys(v).sort()) out.push(`--${name}=${k}=${scalar(name, v[k] ?? null)}`);
    return;
  }
  out.push(`--${name}=${scalar(name, v)}`);
}

/** Renders decoded input for one command. Throws `ArgvError` for input the rules refuse. */
export function renderArgv(shape: CommandShape, input: { readonly [key: string]: ExactJson }): string[] {
  const known = new Set<string>([...shape.globals, ...shape.flags].map((f) => f.name));
  for (const arg of shape.args) known.add(arg.name);
  for (const key of Object.keys(input)) {
    if (!known.has(key)) throw new ArgvError(`unknown argument ${JSON.stringify(key)}`);
  }
  const out = [...shape.path];
  for (const flag of [...shape.globals, ...shape.flags]) {
    if (Object.hasOwn(input, flag.name)) renderFlag(flag, input[flag.name] ?? null, out);
  }
  // The last supplied positional decides how many are emitted: earlier gaps take their default.
  let last = -1;
  shape.args.forEach((a, i) => {
    if (Object.hasOwn(input, a.name)) last = i;
  });
  if (last < 0) return out;
  const positionals: string[] = [];
  for (let i = 0; i <= last; i++) {
    const arg = shape.args[i] as ArgModel;
    if (!Object.hasOwn(input, arg.name)) {
      const later = shape.args[last] as ArgModel;
      if (arg.default.length === 0) {
        throw new ArgvError(
          `argument ${JSON.stringify(arg.name)} must be given because ${JSON.stringify(later.name)} is, and it has no default`,
        );
      }
      positionals.push(...arg.default);
      continue;
    }
    const value = input[arg.name] ?? null;
    if (Array.isArray(value)) {
      if (!arg.cumulative) throw new ArgvError(`argument ${JSON.stringify(arg.name)} takes one value, not a list`);
      if (i !== shape.args.length - 1) throw new ArgvError(`argument ${JSON.stringify(arg.name)} repeats but is not the last argument`);
      for (const item of value as readonly ExactJson[]) positionals.push(scalar(arg.name, item));
    } else {
      positionals.push(scalar(arg.name, value));
    }
  }
  out.push('--', ...positionals);
  return out;
}

/**
 * Decodes raw model input (numbers kept as written) and renders it. Empty and `null` input are
 * the empty object.
 */
export function renderArgvFromJson(shape: CommandShape, raw: string): string[] {
  const text = raw.trim();
  let value: ExactJson = {};
  if (text !== '' && text !== 'null') {
    try {
      value = parseExactJson(text);
    } catch (err) {
      throw new ArgvError(`arguments are not valid JSON: ${(err as Error).message}`);
    }
  }
  if (!isRecord(value)) throw new ArgvError('arguments must be a JSON object');
  return renderArgv(shape, value);
}
