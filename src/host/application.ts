/**
 * The wrapped application as a runtime loads it: the credential variables no tool subprocess may
 * inherit, the load options `openRuntime` uses, and starting its introspection ahead of
 * `openRuntime` so the application starts while the caller is still loading. Kept apart from the
 * runtime so a command can start the application before loading the rest of the host.
 */
import { credentialEnvNames as configCredentialNames } from '../config/index.js';
import type { Config } from '../config/index.js';
import { providerCredentialEnvNames } from '../llm/provider-catalog.js';
import type { PendingIntrospection } from '../toolkit/fisk/introspect.js';
import { applicationLoadOptions, startApplicationIntrospection } from '../toolkit/load-options.js';
import type { LoadApplicationOptions } from '../toolkit/load-options.js';
import { withCredentialCopies } from '../util/secret-scrub.js';

/**
 * The credential union for a configuration, from the registry as it stands now. Given the
 * environment, every variable that carries one of those values under another name joins it too.
 */
export function credentialUnion(config: Config, env?: Readonly<Record<string, string | undefined>>): string[] {
  const names = new Set([...providerCredentialEnvNames(), ...configCredentialNames(config)]);
  return env === undefined ? [...names].sort() : withCredentialCopies(env, names);
}

/**
 * The options `openRuntime` loads the application with, stripping `credentials` (the credential
 * union as it stands now unless given); undefined without `application_path`.
 */
export function runtimeApplicationOptions(
  config: Config,
  env: Readonly<Record<string, string | undefined>>,
  credentials: readonly string[] = credentialUnion(config, env),
): LoadApplicationOptions | undefined {
  const options = applicationLoadOptions(config, env);
  return options === undefined ? undefined : { ...options, credentialEnvNames: credentials };
}

/**
 * Starts introspecting the configuration's application now, exactly as `openRuntime(config, mode,
 * { env })` would, for `RuntimeDeps.introspection`. `openRuntime` uses the answer only if, when it
 * gets there, it would still run the same command (same binary, environment with the same
 * credentials stripped, deadline and working directory); otherwise it kills it and starts its own.
 * A caller that does not reach `openRuntime` discards it. Undefined without `application_path`.
 * Register any provider of your own before calling this: the application starts with the
 * credentials registered so far stripped, and one registered later is caught only by the mismatch,
 * after the application has started with it.
 *
 * `early` (from `startEarlyIntrospection`, started before the configuration was checked) is
 * returned in place of a new one when it runs exactly that command, and discarded otherwise.
 */
export function startRuntimeIntrospection(
  config: Config,
  env: Readonly<Record<string, string | undefined>>,
  early?: PendingIntrospection,
): PendingIntrospection | undefined {
  const options = runtimeApplicationOptions(config, env);
  // a sandboxed application starts only inside the sandbox openRuntime checks and resolves first
  if (options !== undefined && !config.harness.sandbox.enabled) return startApplicationIntrospection(options, early);
  void early?.discard();
  return undefined;
}
