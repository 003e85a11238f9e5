/** The error base every module's error extends, and the mapping from an error to an exit status. */
export { ERROR_CATEGORIES, FiskError, isFiskError, EXIT, exitFor } from './index.js';
export type { ErrorCategory, FiskErrorOptions, ExitCode } from './index.js';
