/**
 * The parts of a commander program this helper reads, declared structurally: this package never
 * imports commander, so it works with whichever commander 12+ the program itself depends on and
 * adds nothing to an application's dependency tree.
 */

/** A commander `Option`, as far as introspection needs it. */
export interface OptionLike {
  readonly description: string;
  /** A value must follow the flag (`--count <n>`). */
  readonly required: boolean;
  /** A value may follow the flag (`--count [n]`). */
  readonly optional: boolean;
  readonly variadic: boolean;
  /** The option must be given (`requiredOption`). */
  readonly mandatory: boolean;
  readonly short?: string | undefined;
  readonly long?: string | undefined;
  /** A `--no-x` option. */
  readonly negate: boolean;
  readonly defaultValue?: unknown;
  readonly envVar?: string | undefined;
  readonly hidden: boolean;
  readonly argChoices?: readonly string[] | undefined;
  name(): string;
  attributeName(): string;
  isBoolean(): boolean;
}

/** A commander `Argument`. */
export interface ArgumentLike {
  readonly description: string;
  readonly required: boolean;
  readonly variadic: boolean;
  readonly defaultValue?: unknown;
  readonly argChoices?: readonly string[] | undefined;
  name(): string;
}

/** A commander `Command`. */
export interface CommandLike {
  readonly commands: readonly CommandLike[];
  readonly options: readonly OptionLike[];
  readonly registeredArguments: readonly ArgumentLike[];
  name(): string;
  description(): string;
  summary(): string;
  aliases(): string[];
}

/**
 * Whether commander marked the command hidden (`.command(name, { hidden: true })`). Commander keeps
 * this in a private field with no accessor, so it is read defensively; `hideFromTools` is the
 * supported way to hide a command from the model.
 */
export function commanderHidden(cmd: CommandLike): boolean {
  return (cmd as unknown as { _hidden?: unknown })._hidden === true;
}
