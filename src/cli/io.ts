/**
 * The streams a command writes to, injected so commands are testable without a terminal: only an
 * answer goes to `out`; everything else (notes, warnings, progress) goes to `err`.
 */
export interface Io {
  readonly out: NodeJS.WritableStream & { isTTY?: boolean };
  readonly err: NodeJS.WritableStream & { isTTY?: boolean };
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
}

export function processIo(): Io {
  return { out: process.stdout, err: process.stderr, env: process.env, cwd: process.cwd() };
}

/** Writes one line. */
export function println(stream: NodeJS.WritableStream, line = ''): void {
  stream.write(`${line}\n`);
}
