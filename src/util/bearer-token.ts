/**
 * The one rule for a bearer token a listener reads from the environment (`fisk mcp`'s
 * `expose.agent.mcp.auth_token_env`, `fisk serve`'s `expose.agent.a2a_http.auth_token_env`):
 * the named variable must be set, and its trimmed value at least MIN_BEARER_TOKEN_LENGTH long.
 * The problems name the variable and the key, never the value.
 */

/** The shortest token accepted: anything shorter is guessable by whoever can reach the port. */
export const MIN_BEARER_TOKEN_LENGTH = 16;

export type BearerTokenRead = { readonly token: string } | { readonly problem: string };

/**
 * Reads the token from `env[name]`, trimmed. `key` is the configuration key that names the
 * variable (for example `expose.agent.mcp.auth_token_env`); it appears in every problem.
 */
export function readBearerToken(env: Readonly<Record<string, string | undefined>>, name: string, key: string): BearerTokenRead {
  const value = (env[name] ?? '').trim();
  if (value === '') {
    return {
      problem: `${key} names ${name}, which is not set or empty; export ${name} with the token clients must send (for example: export ${name}=$(openssl rand -hex 32)), or remove auth_token_env`,
    };
  }
  if (value.length < MIN_BEARER_TOKEN_LENGTH) {
    return {
      problem: `${name} (named by ${key}) holds a token shorter than ${MIN_BEARER_TOKEN_LENGTH} characters, which is too easy to guess; use a long random one (for example: openssl rand -hex 32)`,
    };
  }
  return { token: value };
}
