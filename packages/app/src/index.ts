/**
 * `@fisk-ai/app`: lets a TypeScript program built with commander answer `--fisk-introspect`, so
 * fisk-ai can offer its commands to a model as tools. Commands are read structurally; this package
 * imports neither commander nor anything else, and has no dependencies.
 */
export { answerIntrospection, INTROSPECT_FLAG } from './introspect.js';
export type { AnswerOptions } from './introspect.js';
export { describeApplication, DURATION_PATTERN } from './describe.js';
export type { ApplicationMeta } from './describe.js';
export { tagCommand, hideFromTools, valueType, VALUE_TYPES } from './annotate.js';
export type { ValueType } from './annotate.js';
export type { ArgumentLike, CommandLike, OptionLike } from './command-like.js';
export type { ApplicationModel, ArgModel, CommandModel, FlagModel } from './model.js';
