/** The secret-bearing variables the OpenAI providers and their SDK read. */
export const OPENAI_CREDENTIAL_ENV_NAMES = ['OPENAI_ADMIN_KEY', 'OPENAI_API_KEY', 'OPENAI_WEBHOOK_SECRET'] as const;

/** Where both OpenAI providers find their endpoint and key, and the endpoint used when none is set. */
export const OPENAI_ENDPOINT = {
  baseUrlVar: 'OPENAI_BASE_URL',
  apiKeyVar: 'OPENAI_API_KEY',
  vendor: 'OpenAI',
  defaultBaseUrl: 'https://api.openai.com/v1',
} as const;
