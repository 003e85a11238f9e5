/**
 * `fisk-ai/app`: the helpers of the `@fisk-ai/app` package, re-exported for programs that already
 * depend on fisk-ai. A program that only answers `--fisk-introspect` needs `@fisk-ai/app` alone.
 */
export {
  answerIntrospection,
  INTROSPECT_FLAG,
  describeApplication,
  DURATION_PATTERN,
  tagCommand,
  hideFromTools,
  valueType,
  VALUE_TYPES,
} from '@fisk-ai/app';
export type {
  AnswerOptions,
  ApplicationMeta,
  ValueType,
  ArgumentLike,
  CommandLike,
  OptionLike,
  ApplicationModel,
  ArgModel,
  CommandModel,
  FlagModel,
} from '@fisk-ai/app';
