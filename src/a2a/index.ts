/**
 * The agent-to-agent protocol engine: messages and their schemas, the codec, header stamping,
 * transports behind one interface, the tool service, the client, and delegation of whole prompts.
 */
export * from './errors.js';
export * from './protocol.js';
export type * from './types.js';
export { BLOCK_TYPES, STOP_REASONS, QUESTION_KINDS, HOSTED_QUESTION_MODES } from './types.js';
export { encode, decode, prepareCodec, validateOutgoing, MAX_DEPTH } from './codec.js';
export { messageSchema, definitionsSchema, allSchemas } from './schemas.js';
export type { SchemaMode, JsonSchema } from './schemas.js';
export { stampRequest, stampReply } from './stamp.js';
export { registerTransport, transportNames, Slots } from './transport.js';
export type {
  Transport,
  TransportOptions,
  TransportFactory,
  ServiceSpec,
  EndpointSpec,
  IncomingRequest,
  ServiceHandle,
  ReplyStream,
  Subscription,
} from './transport.js';
export { createTransport } from './registry.js';
export { InprocBus } from './inproc.js';
export { selectExposed, buildAgentCard, A2A_DROP_REASONS } from './card.js';
export type { AgentCard, DroppedTool, ExposedSelection, A2aDropReason } from './card.js';
export { startToolService, toolEndpoints } from './tool-service.js';
export { DENY_PROMPTER } from '../toolkit/invoke/deny-prompter.js';
export type { ServedCall, ToolServiceOptions } from './tool-service.js';
export { A2aClient } from './client.js';
export type { CallOptions } from './client.js';
export { delegate, applyBudget, parseDurationMs, KEEPALIVE_INTERVAL_MS } from './delegation.js';
export type { HostedRunMessage, DelegateOptions, DelegationUpdate, RunLimits } from './delegation.js';
export { startPromptServer, deriveSessionId } from './prompt-server.js';
export type {
  DelegatedRun,
  DelegationHandler,
  HostedRun,
  HostedRunHandler,
  RunEnding,
  AskResult,
  PromptServer,
  PromptServerOptions,
} from './prompt-server.js';
