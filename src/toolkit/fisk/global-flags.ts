/**
 * `global_flags`: the operator's allowlist of the application's global flags offered on every
 * command. Validated against the binary's real globals, because a misspelt name would otherwise
 * silently expose nothing.
 */
import { ToolkitError } from '../errors.js';
import type { FlagModel } from './model.js';

/** Flags the command framework adds itself; they are never the application's to expose. */
export const FRAMEWORK_FLAGS: readonly string[] = [
  'help',
  'help-long',
  'help-man',
  'completion-bash',
  'completion-script-bash',
  'completion-script-zsh',
  'fisk-introspect',
  'version',
];

/** One global flag as `fisk info` lists it. */
export interface GlobalFlagReport {
  readonly name: string;
  readonly help: string;
  readonly exposed: boolean;
  readonly required: boolean;
}

/**
 * The globals to merge into every command, in the application's order: those the operator
 * listed, plus every global the application marks required (a command cannot run without it).
 * Refuses an unknown name, a hidden flag and a framework flag, naming the `global_flags` entry.
 */
export function resolveGlobalFlags(globals: readonly FlagModel[], requested: readonly string[]): FlagModel[] {
  const byName = new Map(globals.map((g) => [g.name, g]));
  for (const name of requested) {
    const g = byName.get(name);
    if (FRAMEWORK_FLAGS.includes(name) && (g === undefined || g.hidden)) {
      throw new ToolkitError('global_flag', `global_flags: ${JSON.stringify(name)} is a framework flag and cannot be exposed; remove it`);
    }
    if (g === undefined) {
      const offered = globals.filter((x) => !x.hidden).map((x) => x.name);
      throw new ToolkitError(
        'global_flag',
        `global_flags: ${JSON.stringify(name)} is not a global flag of the application; ${
          offered.length === 0 ? 'it has none to expose, so remove global_flags' : `choose from ${offered.join(', ')}`
        }`,
      );
    }
    if (g.hidden)
      throw new ToolkitError('global_flag', `global_flags: ${JSON.stringify(name)} is a hidden flag and cannot be exposed; remove it`);
  }
  const wanted = new Set(requested);
  return globals.filter((g) => !g.hidden && (wanted.has(g.name) || g.required));
}

/** Every visible global with whether it is exposed, for `fisk info`. */
export function reportGlobalFlags(globals: readonly FlagModel[], exposed: readonly FlagModel[]): GlobalFlagReport[] {
  const on = new Set(exposed.map((g) => g.name));
  return globals.filter((g) => !g.hidden).map((g) => ({ name: g.name, help: g.help, exposed: on.has(g.name), required: g.required }));
}

/** The schema property a global flag contributes (globals carry no precomputed schema). */
export function globalFlagProperty(flag: FlagModel): Record<string, unknown> {
  const description = flag.help === '' ? {} : { description: flag.help };
  if (flag.boolean) return { type: 'boolean', ...description };
  if (flag.cumulative) return { type: 'array', items: { type: 'string' }, ...description };
  return { type: 'string', ...description };
}

/**
 * A command's schema with the globals that do not clash with its own flags or arguments merged
 * in. Always a deep clone: the original is reused on every request and must not change.
 */
export function mergeGlobals(schema: Readonly<Record<string, unknown>>, globals: readonly FlagModel[]): Record<string, unknown> {
  return withGlobals(structuredClone(schema), globals);
}

/**
 * `schema` with the globals merged in, copying only its top level and its properties: for a
 * caller that deep-copies the result itself (a command tool does, once, as it is built).
 */
export function withGlobals(schema: Readonly<Record<string, unknown>>, globals: readonly FlagModel[]): Record<string, unknown> {
  const out = { ...schema };
  if (globals.length === 0) return out;
  const props = { ...((out['properties'] as Record<string, unknown> | undefined) ?? {}) };
  const required = Array.isArray(out['required']) ? [...(out['required'] as unknown[])] : [];
  for (const g of globals) {
    props[g.name] = globalFlagProperty(g);
    if (g.required) required.push(g.name);
  }
  out['properties'] = props;
  out['required'] = required;
  return out;
}
