/**
 * What commander cannot say about a command or a value: tags for the harness, a value type the
 * model should see, and hiding a command from tools. Kept beside the program in weak maps, so the
 * commander objects are not modified.
 */
import type { ArgumentLike, CommandLike, OptionLike } from './command-like.js';

/** Value types a schema can express beyond commander's strings and switches. */
export const VALUE_TYPES = ['string', 'integer', 'number', 'duration'] as const;
export type ValueType = (typeof VALUE_TYPES)[number];

const tagsOf = new WeakMap<CommandLike, string[]>();
const hiddenSet = new WeakSet<CommandLike>();
const typeOf = new WeakMap<OptionLike | ArgumentLike, ValueType>();

/**
 * Tags a command (`ai:read_only`, `ai:confirm`, `ai:deny`, or any tag the operator can gate with
 * `harness.confirm_tags`). Returns the command so calls chain.
 */
export function tagCommand<C extends CommandLike>(cmd: C, ...tags: string[]): C {
  const list = tagsOf.get(cmd) ?? [];
  for (const t of tags) {
    if (t.trim() === '') throw new TypeError('a tag must not be empty');
    if (!list.includes(t)) list.push(t);
  }
  tagsOf.set(cmd, list);
  return cmd;
}

/** Keeps a command and everything under it out of the tools. */
export function hideFromTools<C extends CommandLike>(cmd: C): C {
  hiddenSet.add(cmd);
  return cmd;
}

/** Declares the type of an option's or argument's value, so the model is offered a typed field. */
export function valueType<V extends OptionLike | ArgumentLike>(value: V, type: ValueType): V {
  if (!VALUE_TYPES.includes(type)) throw new TypeError(`unknown value type ${JSON.stringify(type)}; use one of ${VALUE_TYPES.join(', ')}`);
  typeOf.set(value, type);
  return value;
}

export function tagsFor(cmd: CommandLike): readonly string[] {
  return tagsOf.get(cmd) ?? [];
}

export function isHiddenFromTools(cmd: CommandLike): boolean {
  return hiddenSet.has(cmd);
}

export function typeFor(value: OptionLike | ArgumentLike): ValueType {
  return typeOf.get(value) ?? 'string';
}
