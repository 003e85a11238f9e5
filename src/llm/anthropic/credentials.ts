/** The secret-bearing variables this provider and its SDK read (listed once, in util). */
export { ANTHROPIC_CREDENTIAL_ENV_NAMES } from '../../util/credential-names.js';

/** Where the Anthropic provider finds its endpoint and key, and the endpoint used when none is set. */
export const ANTHROPIC_ENDPOINT = {
  baseUrlVar: 'ANTHROPIC_BASE_URL',
  apiKeyVar: 'ANTHROPIC_API_KEY',
  vendor: 'Anthropic',
  defaultBaseUrl: 'https://api.anthropic.com',
} as const;
