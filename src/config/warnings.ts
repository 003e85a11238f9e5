import type { Config } from './types.js';

/** A setting that is accepted but will not do what it seems to: reported, never silent. */
export interface ConfigWarning {
  readonly key: string;
  readonly message: string;
}

/** Addresses that mean every interface: a card cannot send callers to them. */
const UNSPECIFIED = new Set(['0.0.0.0', '::', '0:0:0:0:0:0:0:0']);

/** `harness.sandbox` keys that widen a sandbox no application command runs in while it is off. */
function idleSandboxKeys(config: Config): ConfigWarning[] {
  const sandbox = config.harness.sandbox;
  if (sandbox.enabled) return [];
  const given = [
    sandbox.network ? 'network' : undefined,
    sandbox.writable !== undefined ? 'writable' : undefined,
    sandbox.tools.length > 0 ? 'tools' : undefined,
  ].filter((k): k is string => k !== undefined);
  return given.map((k) => ({
    key: `harness.sandbox.${k}`,
    message: 'has no effect while harness.sandbox.enabled is false: application commands run unsandboxed; set enabled: true, or remove it',
  }));
}

/**
 * The warnings a configuration earns whatever the command: filters with nothing to filter, tag
 * filters that cannot be honoured on remote hosts, declared but unused blocks.
 */
export function configWarnings(config: Config): ConfigWarning[] {
  const out: ConfigWarning[] = [];
  const filtersSet =
    config.include.tools.length + config.include.tags.length + config.exclude.tools.length + config.exclude.tags.length > 0;
  if (filtersSet && config.applicationPath === undefined) {
    out.push({
      key: 'include',
      message: "include/exclude have no effect without application_path: they filter the wrapped application's commands",
    });
  }
  config.remoteTools.forEach((host, i) => {
    if (host.include.tags.length > 0) {
      out.push({
        key: `remote_tools[${i}].include.tags`,
        message: 'is ignored: discovery carries no tags; filter remote tools by name with include.tools',
      });
    }
  });
  out.push(...idleSandboxKeys(config));
  const http = config.expose.a2aHttp;
  if (http !== undefined && http.publicUrl === undefined && UNSPECIFIED.has(http.address.replace(/^\[|\]$/gu, ''))) {
    out.push({
      key: 'expose.agent.a2a_http.public_url',
      message: `is unset, so the agent card tells callers to post to http://${http.address.includes(':') ? `[${http.address}]` : http.address}:${http.port}/, which they cannot reach; set it to the URL callers use`,
    });
  }
  return out;
}
