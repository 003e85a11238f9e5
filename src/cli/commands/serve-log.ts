/**
 * The log of `fisk serve`: every line stamped with the time and the worker's id, and, where it
 * concerns one piece of work, the job or session id; a failure carries its reason. Text for a
 * person by default; `--log-format json` writes one JSON object per line for a log shipper.
 */
import { oneLine } from '../../util/terminal-text.js';
import { UsageError } from '../errors.js';
import { println } from '../io.js';

export const LOG_FORMATS = ['text', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export const LOG_LEVELS = ['info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The structured part of a line: ids, outcome, reason; only strings and numbers, never content. */
export type LogFields = Readonly<
  Record<string, string | number | boolean | readonly unknown[] | Readonly<Record<string, unknown>> | undefined>
>;

/** `--log-format`, checked: names the flag and its values when it is neither. */
export function logFormat(value: string | undefined): LogFormat {
  const v = (value ?? 'text').trim().toLowerCase();
  if (v === 'text' || v === 'json') return v;
  throw new UsageError(
    `--log-format ${JSON.stringify(value)} is not a log format; use text (the default) or json (one JSON object per line)`,
  );
}

export interface ServeLogOptions {
  readonly format: LogFormat;
  readonly worker: string;
  readonly out: NodeJS.WritableStream;
  /** The clock; the wall clock unless a test gives another. */
  readonly now?: () => Date;
}

/** One log for the whole process; lines are written whole, so two runs never interleave a line. */
export class ServeLog {
  readonly #format: LogFormat;
  readonly #worker: string;
  readonly #out: NodeJS.WritableStream;
  readonly #now: () => Date;

  constructor(options: ServeLogOptions) {
    this.#format = options.format;
    this.#worker = options.worker;
    this.#out = options.out;
    this.#now = options.now ?? ((): Date => new Date());
  }

  get format(): LogFormat {
    return this.#format;
  }

  get worker(): string {
    return this.#worker;
  }

  /**
   * Writes one line. `message` is what a person reads (the text format shows only it, after the
   * time and worker); `fields` go beside it in JSON. Text from peers and models is cleaned of
   * control sequences and folded onto the one line either way.
   */
  line(level: LogLevel, event: string, message: string, fields: LogFields = {}): void {
    const time = this.#now().toISOString();
    if (this.#format === 'json') {
      const record: Record<string, unknown> = { time, level, worker: this.#worker, event, msg: oneLine(message) };
      for (const [key, value] of Object.entries(fields)) {
        if (value !== undefined) record[key] = typeof value === 'string' ? oneLine(value) : value;
      }
      println(this.#out, JSON.stringify(record));
      return;
    }
    const prefix = level === 'info' ? '' : `${level === 'warn' ? 'warning' : 'error'}: `;
    println(this.#out, `${time} ${this.#worker} ${prefix}${oneLine(message)}`);
  }

  info(event: string, message: string, fields?: LogFields): void {
    this.line('info', event, message, fields);
  }

  warn(event: string, message: string, fields?: LogFields): void {
    this.line('warn', event, message, fields);
  }

  error(event: string, message: string, fields?: LogFields): void {
    this.line('error', event, message, fields);
  }
}
