/** The exit-status table lives beside `exitFor` in src/errors; commands import it from here too. */
export { EXIT, exitFor } from '../errors/exit-codes.js';
export type { ExitCode } from '../errors/exit-codes.js';
