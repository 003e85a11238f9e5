/** The secret-bearing variables the Anthropic provider and its SDK read. */
export const ANTHROPIC_CREDENTIAL_ENV_NAMES = [
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'ANTHROPIC_CUSTOM_HEADERS',
  'ANTHROPIC_IDENTITY_TOKEN',
  'ANTHROPIC_WEBHOOK_SIGNING_KEY',
] as const;

/** Where the Anthropic provider finds its endpoint and key, and the endpoint used when none is set. */
export const ANTHROPIC_ENDPOINT = {
  baseUrlVar: 'ANTHROPIC_BASE_URL',
  apiKeyVar: 'ANTHROPIC_API_KEY',
  vendor: 'Anthropic',
  defaultBaseUrl: 'https://api.anthropic.com',
} as const;
