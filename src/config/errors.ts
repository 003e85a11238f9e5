/**
 * Configuration errors. Every one names the key to change (a dotted path such as
 * `harness.memory.backend`) and, where the file is known, where in it the problem sits.
 */
import { FiskError } from '../errors/fisk-error.js';
import type { ErrorCategory } from '../errors/fisk-error.js';

/** The closed set of configuration failure classes. */
export const CONFIG_ERROR_CODES = [
  'read', // the file could not be read
  'syntax', // not YAML or JSON, or a duplicate key
  'unknown_key', // a key the schema does not have
  'type', // a value of the wrong type
  'value', // a value of the right type that is not accepted
  'missing', // a key the command needs is absent
  'options', // a backend options block failed strict decoding
] as const;
export type ConfigErrorCode = (typeof CONFIG_ERROR_CODES)[number];

/** One problem found in a configuration. */
export interface ConfigIssue {
  readonly code: ConfigErrorCode;
  /** The dotted key path to change; empty for the whole document. */
  readonly key: string;
  /** What is wrong and what would be accepted, in words. */
  readonly message: string;
  /** `file:line:column`, when the problem has a place in a file. */
  readonly at?: string;
}

/** Renders one issue as a single line. */
export function formatIssue(issue: ConfigIssue): string {
  const where = issue.at === undefined ? '' : ` at ${issue.at}`;
  return issue.key === '' ? `${issue.message}${where}` : `${issue.key}: ${issue.message}${where}`;
}

/** A configuration that cannot be used. Carries every issue found, the first one first. */
export class ConfigError extends FiskError<ConfigErrorCode> {
  readonly category: ErrorCategory = 'configuration';
  readonly issues: readonly ConfigIssue[];
  readonly key: string;

  constructor(issues: readonly ConfigIssue[], options?: { cause?: unknown }) {
    const first = issues[0];
    if (first === undefined) throw new TypeError('ConfigError needs at least one issue');
    super(first.code, issues.map(formatIssue).join('\n'), options);
    this.name = 'ConfigError';
    this.issues = issues;
    this.key = first.key;
  }

  /** A ConfigError with a single issue. */
  static of(code: ConfigErrorCode, key: string, message: string, at?: string): ConfigError {
    return new ConfigError([at === undefined ? { code, key, message } : { code, key, message, at }]);
  }
}
