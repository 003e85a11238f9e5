/**
 * The application model a program prints for `--fisk-introspect`, in fisk's own snake_case field
 * names. This package owns the format: it writes it, and fisk-ai reads it with these same types.
 */

/** A flag as fisk describes it; `default` holds strings, `cumulative` means repeatable. */
export interface FlagModel {
  readonly name: string;
  readonly help: string;
  readonly short: string;
  /** Default values as strings, as fisk reports them. */
  readonly default: readonly string[];
  readonly envar: string;
  readonly place_holder: string;
  readonly required: boolean;
  readonly hidden: boolean;
  readonly boolean: boolean;
  readonly negatable: boolean;
  readonly cumulative: boolean;
  /** Completion hints; advice for shells, not a closed set (the schema carries enums). */
  readonly completions: readonly string[];
}

/** A positional argument as fisk describes it. */
export interface ArgModel {
  readonly name: string;
  readonly help: string;
  readonly default: readonly string[];
  readonly envar: string;
  readonly place_holder: string;
  readonly required: boolean;
  readonly hidden: boolean;
  readonly cumulative: boolean;
}

/** A command; one with subcommands is a group, one without is a leaf and becomes a tool. */
export interface CommandModel {
  readonly name: string;
  readonly aliases: readonly string[];
  readonly help: string;
  readonly help_long: string;
  readonly hidden: boolean;
  readonly default: boolean;
  readonly tags: readonly string[];
  readonly flags: readonly FlagModel[];
  readonly args: readonly ArgModel[];
  readonly commands: readonly CommandModel[];
  /** The subset of JSON schema model APIs accept; required on every leaf. */
  readonly restricted_schema?: Readonly<Record<string, unknown>>;
  readonly schema?: Readonly<Record<string, unknown>>;
}

/** The whole document `--fisk-introspect` prints. */
export interface ApplicationModel {
  readonly name: string;
  readonly help: string;
  readonly version: string;
  readonly author: string;
  /** The application's global flags. */
  readonly flags: readonly FlagModel[];
  readonly args: readonly ArgModel[];
  readonly commands: readonly CommandModel[];
}
