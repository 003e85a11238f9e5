/** The secret-bearing variables the Anthropic provider and its SDK read. */
export const ANTHROPIC_CREDENTIAL_ENV_NAMES = [
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'ANTHROPIC_CUSTOM_HEADERS',
  'ANTHROPIC_IDENTITY_TOKEN',
  'ANTHROPIC_WEBHOOK_SIGNING_KEY',
] as const;
