/**
 * The environment variables that carry credentials no tool subprocess needs, each list written once.
 * The provider modules, the telemetry leaf and the configuration's subprocess scrubbing all read
 * these same arrays, so a variable added here is withheld from tools and recognised by its owner in
 * the same change.
 */

/** The secret-bearing variables the Anthropic provider and its SDK read. */
export const ANTHROPIC_CREDENTIAL_ENV_NAMES = [
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'ANTHROPIC_CUSTOM_HEADERS',
  'ANTHROPIC_IDENTITY_TOKEN',
  'ANTHROPIC_WEBHOOK_SIGNING_KEY',
] as const;

/** The secret-bearing variables the OpenAI providers and their SDK read. */
export const OPENAI_CREDENTIAL_ENV_NAMES = ['OPENAI_ADMIN_KEY', 'OPENAI_API_KEY', 'OPENAI_WEBHOOK_SECRET'] as const;

/** The credential variables of every built-in model provider. */
export const PROVIDER_CREDENTIAL_ENV_NAMES = [...ANTHROPIC_CREDENTIAL_ENV_NAMES, ...OPENAI_CREDENTIAL_ENV_NAMES] as const;

/**
 * OTLP exporter variables that can carry credentials (headers with a collector token, a client
 * key). Withheld from every tool subprocess whether or not this agent exports telemetry: they are
 * ambient operator settings no tool needs, and gating on configuration would hand the token back
 * to tools whenever telemetry is switched off.
 */
export const OTLP_CREDENTIAL_ENV_NAMES = [
  'OTEL_EXPORTER_OTLP_HEADERS',
  'OTEL_EXPORTER_OTLP_TRACES_HEADERS',
  'OTEL_EXPORTER_OTLP_METRICS_HEADERS',
  'OTEL_EXPORTER_OTLP_LOGS_HEADERS',
  'OTEL_EXPORTER_OTLP_CLIENT_KEY',
  'OTEL_EXPORTER_OTLP_TRACES_CLIENT_KEY',
  'OTEL_EXPORTER_OTLP_METRICS_CLIENT_KEY',
  'OTEL_EXPORTER_OTLP_LOGS_CLIENT_KEY',
] as const;

/** Slack credentials live only in the environment, never in agent.yaml. */
export const SLACK_CREDENTIAL_ENV_NAMES = ['SLACK_APP_TOKEN', 'SLACK_BOT_TOKEN'] as const;

/** The credential variables every configuration withholds from tools, whatever it says. */
export const STANDING_CREDENTIAL_ENV_NAMES: readonly string[] = [
  ...PROVIDER_CREDENTIAL_ENV_NAMES,
  ...OTLP_CREDENTIAL_ENV_NAMES,
  ...SLACK_CREDENTIAL_ENV_NAMES,
];
