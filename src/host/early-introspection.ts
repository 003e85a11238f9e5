/**
 * The application's introspection started from the configuration file before it is checked, so a
 * command's slowest wait (an application's own start) overlaps the loading and checking of the
 * configuration rather than following it. Loads no configuration schema: only the YAML reader.
 *
 * Safe by construction rather than by luck:
 * - the application's environment is stripped of every credential variable the file could name,
 *   a superset of what the checked configuration strips (see `ApplicationPeek.words`), so the
 *   early application never sees a secret the checked one would not;
 * - the checked configuration adopts it only when it would run exactly the same command (binary,
 *   environment, deadline and working directory), and otherwise it is discarded, killing the
 *   application; a refused configuration discards it too.
 */
import { STANDING_CREDENTIAL_ENV_NAMES } from '../util/credential-names.js';
import { peekApplication } from '../config/peek.js';
import { providerCredentialEnvNames } from '../llm/provider-catalog.js';
import type { PendingIntrospection } from '../toolkit/fisk/introspect.js';
import { resolveApplicationPath, startApplicationIntrospection } from '../toolkit/load-options.js';
import { withCredentialCopies } from '../util/secret-scrub.js';

/**
 * Starts introspecting the application the file at `path` names, or returns undefined when it
 * names none or cannot be read. Hand the result to `startRuntimeIntrospection` with the checked
 * configuration, which adopts or discards it; a caller that stops before that discards it.
 */
export function startEarlyIntrospection(path: string, env: Readonly<Record<string, string | undefined>>): PendingIntrospection | undefined {
  const peek = peekApplication(path);
  if (peek === undefined) return undefined;
  const credentials = withCredentialCopies(env, [...providerCredentialEnvNames(), ...STANDING_CREDENTIAL_ENV_NAMES, ...peek.words]);
  return startApplicationIntrospection({
    applicationPath: resolveApplicationPath(peek.applicationPath, peek.baseDir),
    globalFlags: [],
    confirmTags: [],
    include: { tools: [], tags: [] },
    exclude: { tools: [], tags: [] },
    credentialEnvNames: credentials,
    env,
  });
}
