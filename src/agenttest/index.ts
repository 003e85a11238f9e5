/**
 * Test doubles and helpers for fisk-ai and for embedders testing their own agents: a private
 * nats-server, scripted providers, fake model servers, a Slack stand-in and an OTLP receiver.
 */
export { startNatsServer, freePort } from './nats-server.js';
export type { NatsServer, NatsServerOptions } from './nats-server.js';
export { startNatsCluster } from './nats-cluster.js';
export type { NatsCluster, NatsClusterNode, NatsClusterOptions } from './nats-cluster.js';
export { ScriptedProvider, scriptedResponse, textResponse, toolUseResponse, hangingStep } from './scripted-provider.js';
export type { ScriptStep, ScriptedProviderOptions, ScriptedResponseOptions, ScriptedToolCall } from './scripted-provider.js';
export { startFakeModelServer } from './fake-model-server.js';
export { startFakeSlack } from './fake-slack.js';
export type {
  FakeSlack,
  FakeSlackAction,
  FakeSlackCall,
  FakeSlackEphemeral,
  FakeSlackMessage,
  FakeSlackOptions,
  FakeSlackPost,
  FakeSlackSubmission,
  FakeSlackView,
} from './fake-slack.js';
export type { FakeModelServer, FakeModelServerOptions, FakeReply, FakeReplyStep, ReceivedRequest } from './fake-model-server.js';
export {
  ANTHROPIC_FIXTURES,
  anthropicError,
  anthropicMessage,
  anthropicOverloaded,
  anthropicRateLimited,
  anthropicText,
  anthropicToolUse,
} from './anthropic-wire.js';
export type { AnthropicMessageOptions, AnthropicUsage } from './anthropic-wire.js';
export {
  OPENAI_FIXTURES,
  chatCompletion,
  openaiError,
  openaiFunctionCallItem,
  openaiMessageItem,
  openaiRateLimited,
  openaiReasoningItem,
  openaiResponse,
  openaiText,
} from './openai-wire.js';
export type { ChatCompletionOptions, OpenAIResponseOptions, OpenAIUsage } from './openai-wire.js';
export { argModel, flagModel } from './app-model.js';
export { generatedApplication } from './generated-app.js';
export type { GeneratedApplication, GeneratedCommand } from './generated-app.js';
export { eventually } from './eventually.js';
export type { EventuallyOptions } from './eventually.js';
export { startOtlpReceiver, OTLP_SIGNALS } from './otlp-receiver.js';
export type {
  OtlpAttributes,
  OtlpEncoding,
  OtlpReceiver,
  OtlpSignal,
  OtlpValue,
  ReceivedDataPoint,
  ReceivedExport,
  ReceivedMetric,
  ReceivedSpan,
  ReceivedSpanEvent,
} from './otlp-receiver.js';
export { anthropicEventStream, chatCompletionEventStream, openaiResponseEventStream, streamIfAsked } from './sse-wire.js';
export { HeldTool } from './held-tool.js';
export type { HeldToolOptions } from './held-tool.js';
export { completed, testTool } from './test-tool.js';
export type { TestToolSpec } from './test-tool.js';
