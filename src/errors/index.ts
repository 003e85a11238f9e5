export { ERROR_CATEGORIES, FiskError, isFiskError, isRetryableFailure } from './fisk-error.js';
export type { ErrorCategory, FiskErrorOptions } from './fisk-error.js';
export { EXIT, exitFor, exitForCategory } from './exit-codes.js';
export type { ExitCode } from './exit-codes.js';
