/** The secret-bearing variables the OpenAI providers and their SDK read. */
export const OPENAI_CREDENTIAL_ENV_NAMES = ['OPENAI_ADMIN_KEY', 'OPENAI_API_KEY', 'OPENAI_WEBHOOK_SECRET'] as const;
