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

/** Whether a stream error means the reader went away (`fisk info | head -1`, a pager quit early). */
export function isClosedPipe(err: unknown): boolean {
  if (typeof err !== 'object' || err === null || !('code' in err)) return false;
  return err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED';
}

/**
 * Makes a reader that stops early end the process quietly, as other command-line tools do: whoever
 * closed the pipe has all the output they wanted. A command that has already reached its status
 * (`fisk bogus 2>&1 | head -1`: the error was the last thing it wrote) keeps it; one still going is
 * ended with status 0. Any other write failure (a full disk) is reported in one line with status 1,
 * never as a stack trace.
 */
export function endQuietlyOnClosedPipe(
  streams: { readonly out: NodeJS.EventEmitter; readonly err: NodeJS.EventEmitter },
  exit: (code: number) => void,
  report: (message: string) => void,
  status: () => number | undefined = () => undefined,
): void {
  // the write failed while the command was finishing: let its status settle before ending
  const closed = (): void => void setImmediate(() => exit(status() ?? 0));
  const onError = (err: unknown): void => {
    if (isClosedPipe(err)) {
      closed();
      return;
    }
    report(`fisk: cannot write output: ${err instanceof Error ? err.message : String(err)}`);
    exit(1);
  };
  streams.out.on('error', onError);
  // a closed stderr must not turn into a report written to that same stderr
  streams.err.on('error', (err: unknown) => (isClosedPipe(err) ? closed() : exit(1)));
}
