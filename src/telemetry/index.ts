/**
 * OpenTelemetry traces and metrics for fisk-ai, following the GenAI semantic conventions. A leaf:
 * it imports Node, OpenTelemetry and the error base only, and takes primitives rather than the
 * rest of the project's types.
 */
export {
  resolveTelemetrySettings,
  telemetrySettingRows,
  OTLP_CREDENTIAL_VARIABLES,
  OTLP_PROTOCOLS,
  TELEMETRY_OFF_VARIABLE,
  SDK_DISABLED_VARIABLE,
  DEFAULT_OTLP_ENDPOINT,
  CONTENT_ATTRIBUTE_LIMIT,
} from './settings.js';
export type {
  ExportPlan,
  OtlpProtocol,
  ResolveTelemetryInput,
  Setting,
  TelemetrySettingRow,
  TelemetryConfigValues,
  TelemetrySettings,
} from './settings.js';
export {
  startTelemetry,
  exportShape,
  Telemetry,
  RunSpan,
  StartupSpan,
  ChatSpan,
  ToolSpan,
  HTTP_ATTEMPT_EVENT,
  STARTUP_SPAN,
} from './provider.js';
export {
  SECONDS_BUCKETS,
  TOKEN_BUCKETS,
  QUEUE_LAG_BUCKETS,
  METRIC_KNOWLEDGE_DEGRADED,
  METRIC_SESSION_APPEND_DURATION,
  METRIC_SERVE_WORK,
  METRIC_SERVE_RETRIES,
  METRIC_SERVE_IN_FLIGHT,
  METRIC_SERVE_PULL_PAUSES,
  METRIC_SERVE_QUEUE_LAG,
} from './instruments.js';
export type {
  ChatOptions,
  ChatResponse,
  ExportShape,
  RunOptions,
  TelemetryFetch,
  TelemetryFetchMiddleware,
  TelemetryOptions,
  ToolOptions,
} from './provider.js';
export { encodeMessages, fitText, jsonCost, MessageCursor, OMITTED, CAPTURED_ROLES } from './content.js';
export type { CapturedMessage, CapturedPart, CapturedRole, EncodedMessages } from './content.js';
export type { DeliveryCount, DeliveryReport } from './delivery.js';
export { ERROR_CLASSES, TOOL_KINDS, TOOL_EXITS, DEGRADE_REASONS, SERVED_OUTCOMES, toolExitClass } from './vocabulary.js';
export type { DegradeReason, ErrorClass, ServedOutcome, ToolExit, ToolKind } from './vocabulary.js';
export { TelemetryError, TELEMETRY_ERROR_CODES } from './errors.js';
export type { TelemetryErrorCode } from './errors.js';
export { isLoopbackHost } from '../util/loopback.js';
