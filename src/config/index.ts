/**
 * agent.yaml: one funnel, `parseConfigForMode`, in three stages (unmarshal strictly, prepare,
 * validate for the calling command). This module is a leaf: it imports only the YAML library and
 * zod, so every command fails the same way on the same bad entry.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ConfigError } from './errors.js';
import { prepare } from './prepare.js';
import { unmarshal } from './unmarshal.js';
import { validateForMode } from './validate.js';
import type { Mode } from './validate.js';
import type { Config } from './types.js';

export type { Config } from './types.js';
export * from './types.js';
export { ConfigError, CONFIG_ERROR_CODES, formatIssue } from './errors.js';
export type { ConfigErrorCode, ConfigIssue } from './errors.js';
export { MODES, validateForMode } from './validate.js';
export type { Mode } from './validate.js';
export { DEFAULTS, DEFAULT_IDENTITY, MCP_EXPOSABLE_BUILTINS, checkServiceUrl, slackApiUrl } from './prepare.js';
export { isLoopbackHost, isLoopbackUrl } from '../util/loopback.js';
export { decodeOptions } from './options.js';
export { DEFAULT_KNOWLEDGE_EXTENSIONS } from './knowledge-extensions.js';
export { DEFAULT_SANDBOX_HIDE } from './sandbox.js';
export { parseGoDuration, formatGoDuration, DurationSyntaxError } from './duration.js';
export {
  credentialEnvNames,
  credentialFiles,
  credentialLiterals,
  OTLP_CREDENTIAL_ENV_NAMES,
  PROVIDER_CREDENTIAL_ENV_NAMES,
  SLACK_CREDENTIAL_ENV_NAMES,
  referencedVariables,
} from './credentials.js';
export type { CredentialFile, CredentialLiteral } from './credentials.js';
export { resolveMcpClient, resolveRemoteAgentHeaders, redactSecrets, redactUrl } from './expand.js';
export type { ResolvedHeaders, ResolvedMcpClient } from './expand.js';
export { DEFAULT_DELEGATE_TIMEOUT, DELEGATE_TOOL_PREFIX, delegateToolName } from './remote-agents.js';
export { describeSettings } from './describe.js';
export { configWarnings } from './warnings.js';
export type { ConfigWarning } from './warnings.js';
export type { Origin, Override, Setting } from './describe.js';
export { allKeyPaths } from './schema.js';
export type { RawConfig } from './schema.js';

/** Where a configuration comes from: a file path, or text with a name for messages. */
export type ConfigInput =
  | { readonly path: string }
  /** Text with a name for messages; relative paths in it resolve against `baseDir` (default: the working directory). */
  | { readonly text: string; readonly name?: string; readonly baseDir?: string };

/**
 * Reads, prepares and validates agent.yaml for one command. Throws `ConfigError`, whose message
 * names every key to change and, for problems with a place in the file, its line and column.
 */
export function parseConfigForMode(input: ConfigInput, mode: Mode): Config {
  let text: string;
  let name: string;
  let baseDir: string;
  if ('path' in input) {
    name = input.path;
    baseDir = dirname(resolve(input.path));
    try {
      text = readFileSync(input.path, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      const why = code === 'ENOENT' ? 'does not exist' : code === 'EISDIR' ? 'is a directory' : (err as Error).message;
      throw new ConfigError(
        [
          {
            code: 'read',
            key: '',
            message: `cannot read configuration ${JSON.stringify(input.path)}: it ${why}; pass --config with the path to agent.yaml${code === 'ENOENT' ? ', or write a starter one with fisk init' : ''}`,
          },
        ],
        { cause: err },
      );
    }
  } else {
    text = input.text;
    name = input.name ?? 'agent.yaml';
    baseDir = resolve(input.baseDir ?? '.');
  }
  const { raw, present } = unmarshal(text, name);
  const config = prepare(raw, name, present, baseDir);
  validateForMode(config, mode);
  return config;
}
