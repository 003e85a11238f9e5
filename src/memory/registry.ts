import type { NatsConnection } from '@nats-io/transport-node';
import type { Store } from './store.js';

/** What a backend may need from its host; the host resolves these without naming any backend. */
export const BACKEND_NEEDS = ['nats'] as const;
export type BackendNeed = (typeof BACKEND_NEEDS)[number];

/** What the host hands a backend when opening a store. */
export interface BackendContext {
  /** The agent identity: the default directory suffix and key prefix. */
  readonly identity: string;
  /** Where a relative directory resolves: the store base when one is set, else the working directory. */
  readonly baseDir?: string | undefined;
  /** A borrowed NATS connection, for backends that declare the `nats` need. Never closed by a store. */
  readonly nats?: NatsConnection | undefined;
  /** The NATS context name the connection came from, for messages and `fisk info`. */
  readonly natsContext?: string | undefined;
  /** Opened to look (`fisk memory ls`): a store that does not exist yet reads as empty and is not created. */
  readonly lookOnly?: boolean | undefined;
}

/** One row of the `fisk info` Memory section. */
export interface InfoRow {
  readonly label: string;
  readonly value: string;
}

/** A memory backend: opens a store from the raw options block, and describes it without opening it. */
export interface BackendFactory {
  /** What the host must provide in the context before `open`. */
  readonly needs: readonly BackendNeed[];
  /**
   * Decodes `options` (the canonical JSON of `harness.memory.options`) strictly and opens the store.
   * Throws `ConfigError` naming the option to change, or `MemoryError` when the store is unusable.
   */
  open(options: string, context: BackendContext): Promise<Store>;
  /** The settings `fisk info` shows, from configuration alone (nothing is contacted or created). */
  describe(options: string, context: BackendContext): readonly InfoRow[];
  /**
   * The directories on this machine the store keeps its data in, from configuration alone (nothing
   * is contacted or created), so a host can keep them out of what it indexes or serves. A backend
   * that keeps nothing here leaves it out.
   */
  paths?(options: string, context: BackendContext): readonly string[];
}

/**
 * Memory backends by name. Adding a backend is a `register` call; the host needs no change.
 */
export class BackendRegistry {
  readonly #factories = new Map<string, BackendFactory>();

  /** Registers a backend. Throws on an empty name, a missing factory or a name already taken. */
  register(name: string, factory: BackendFactory): void {
    if (name.trim() === '') throw new TypeError('memory backend registration: the name is empty');
    if (typeof factory !== 'object' || factory === null || typeof factory.open !== 'function') {
      throw new TypeError(`memory backend registration ${JSON.stringify(name)}: no factory given`);
    }
    if (this.#factories.has(name)) throw new TypeError(`memory backend ${JSON.stringify(name)} is already registered`);
    this.#factories.set(name, factory);
  }

  /** The factory registered under `name`, if any. */
  get(name: string): BackendFactory | undefined {
    return this.#factories.get(name);
  }

  /** Registered names, sorted. */
  names(): readonly string[] {
    return [...this.#factories.keys()].sort();
  }
}
