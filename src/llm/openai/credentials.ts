/** The secret-bearing variables this provider and its SDK read (listed once, in util). */
export { OPENAI_CREDENTIAL_ENV_NAMES } from '../../util/credential-names.js';

/** Where both OpenAI providers find their endpoint and key, and the endpoint used when none is set. */
export const OPENAI_ENDPOINT = {
  baseUrlVar: 'OPENAI_BASE_URL',
  apiKeyVar: 'OPENAI_API_KEY',
  vendor: 'OpenAI',
  defaultBaseUrl: 'https://api.openai.com/v1',
} as const;
