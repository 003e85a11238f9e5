import { ConfigError } from '../config/errors.js';
import type { ProviderFactory, ProviderOptions } from './options.js';
import type { Provider } from './provider.js';

/**
 * What the host needs to know about a provider before it builds one, declared at registration so
 * nothing else in the tree keeps its own table of provider names.
 */
export interface ProviderFacts {
  /** The environment variables carrying the provider's secrets, stripped from every tool subprocess. */
  readonly credentialEnvNames: readonly string[];
  /** The variable the provider reads its base URL from (beats `llm.base_url`), when it reads one. */
  readonly baseUrlEnv: string | undefined;
  /** The variable the provider reads its API key from, when it reads one. */
  readonly apiKeyEnv: string | undefined;
  /** The endpoint used when no base URL is set. */
  readonly defaultBaseUrl: string | undefined;
  /** Whether the provider offers server-side tool search, so definitions may be deferred. */
  readonly toolSearch: boolean;
}

/** The optional facts a registration may add to the required credential list. */
export interface ProviderRegistration {
  readonly baseUrlEnv?: string;
  readonly apiKeyEnv?: string;
  readonly defaultBaseUrl?: string;
  readonly toolSearch?: boolean;
}

interface Entry {
  readonly factory: ProviderFactory;
  readonly facts: ProviderFacts;
}

/**
 * Model providers by name. Registering a provider requires declaring the environment variables
 * that carry its secrets, so a provider cannot be linked in without its credentials being stripped
 * from every tool subprocess.
 */
export class ProviderRegistry {
  readonly #entries = new Map<string, Entry>();

  /**
   * Adds a provider. Throws on an empty name, a missing factory, a missing credential list or a
   * name already taken: these are programming errors, caught the first time the module loads.
   */
  register(name: string, factory: ProviderFactory, credentialEnvNames: readonly string[], more: ProviderRegistration = {}): void {
    if (typeof name !== 'string' || name.trim() === '') throw new TypeError('provider registration needs a non-empty name');
    if (typeof factory !== 'function') throw new TypeError(`provider "${name}" registered without a factory`);
    // Checked at run time too: a JavaScript caller can omit the positional argument.
    const declared: unknown = credentialEnvNames;
    if (!Array.isArray(declared) || declared.some((n) => typeof n !== 'string' || n === '')) {
      throw new TypeError(
        `provider "${name}" must declare the environment variables carrying its secrets (an array of names, possibly empty)`,
      );
    }
    if (this.#entries.has(name)) throw new TypeError(`provider "${name}" is already registered`);
    if (more.baseUrlEnv !== undefined && more.baseUrlEnv.trim() === '')
      throw new TypeError(`provider "${name}" declares an empty base URL variable`);
    const facts: ProviderFacts = Object.freeze({
      credentialEnvNames: Object.freeze([...credentialEnvNames]),
      baseUrlEnv: more.baseUrlEnv,
      apiKeyEnv: more.apiKeyEnv,
      defaultBaseUrl: more.defaultBaseUrl,
      toolSearch: more.toolSearch ?? false,
    });
    this.#entries.set(name, { factory, facts });
  }

  /** The registered names, sorted. */
  names(): string[] {
    return [...this.#entries.keys()].sort();
  }

  /** Whether a name is registered. */
  has(name: string): boolean {
    return this.#entries.has(name);
  }

  /**
   * Builds the named provider. An unknown name is a `ConfigError` on `llm.provider` listing the
   * known ones; the factory's own refusals (bad base URL, missing key) propagate unchanged.
   */
  create(name: string, options: ProviderOptions): Provider {
    const entry = this.#entries.get(name);
    if (entry === undefined) throw ConfigError.of('value', 'llm.provider', this.unknownMessage(name));
    return entry.factory(options);
  }

  /** What is wrong with a name nothing is registered under, naming the known ones. */
  unknownMessage(name: string): string {
    return `unknown provider "${name}": known providers are ${this.names().join(', ')}`;
  }

  /** What a registered provider declared; `undefined` for an unknown name. */
  facts(name: string): ProviderFacts | undefined {
    return this.#entries.get(name)?.facts;
  }

  /** The union of every registered provider's secret-bearing variables, sorted and deduplicated. */
  credentialEnvNames(): string[] {
    const all = new Set<string>();
    for (const e of this.#entries.values()) for (const n of e.facts.credentialEnvNames) all.add(n);
    return [...all].sort();
  }
}
