/**
 * `openRuntime`: the one place a prepared configuration becomes what runs borrow. It builds, once,
 * the provider (through the registry), one NATS connection per context, the memory, session and
 * knowledge stores (verified), and the tool sources (the application's commands, the built-ins,
 * an embedder's custom tools). Warnings come back as data; nothing here prints. `close` releases
 * everything in reverse order of opening.
 */
import { existsSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { humanTools } from '../agent/human-tools.js';
import { ConfigError, credentialFiles, credentialLiterals } from '../config/index.js';
import type { Config } from '../config/index.js';
import type { RunKnowledge } from '../knowledge/run-knowledge.js';
import type { FetchLike, FetchMiddleware } from '../llm/http.js';
import type { Provider } from '../llm/provider.js';
import { loadProvider, newProviderFromConfig, providerFacts, unknownProviderMessage } from '../llm/provider-catalog.js';
import type { ProviderFacts } from '../llm/registry.js';
import type { Store as MemoryStore } from '../memory/store.js';
import type { SessionStore } from '../runstate/store.js';
import type { PendingIntrospection } from '../toolkit/fisk/introspect.js';
import { loadApplicationTools } from '../toolkit/load.js';
import type { LoadedApplication } from '../toolkit/load.js';
import type { Tool } from '../toolkit/tool.js';
import { secretScrubber, secretsFromEnv, secretsFromFiles } from '../util/secret-scrub.js';
import { credentialUnion, runtimeApplicationOptions } from './application.js';
import { ConnectionPool } from './connections.js';
import { openSandbox } from './sandbox.js';
import type { SandboxSettings } from '../toolkit/sandbox/policy.js';
import { HostError } from './errors.js';
import { localToolNames, NO_IMPORTS, openImports } from './imports.js';
import type { ImportedTools } from './imports.js';

/** What a runtime is for, which decides what it opens. */
export const RUNTIME_MODES = [
  'run', // a run or a served agent: provider, stores, every tool source
  'mcp', // `fisk mcp`: tools and the knowledge store, no model
  'lend', // `fisk serve` lending tools over a2a: the tools a peer may call, no model, no stores, no imports
  'listing', // `fisk info`: nothing opened but what shows what a run would get
] as const;
export type RuntimeMode = (typeof RUNTIME_MODES)[number];

/** Something the operator should hear about the runtime; never printed by the library. */
export interface RuntimeNote {
  readonly level: 'warning' | 'note';
  /** The key or flag the note is about, when there is one. */
  readonly key?: string;
  readonly message: string;
}

/** What a caller can supply or replace. */
export interface RuntimeDeps {
  /** The environment secrets, `${VAR}` values and tool subprocesses come from. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** An absolute store base (`--store-dir`, `FISK_AI_STORE_DIR`) for relative store directories. */
  readonly storeBase?: string;
  /** A provider to use instead of the one `llm.provider` names. */
  readonly provider?: Provider;
  /** Provider construction overrides: a `--api-key`/`--base-url` flag, HTTP hooks, a fetch. */
  readonly providerOptions?: {
    readonly apiKey?: string;
    readonly baseUrl?: string;
    readonly fetch?: FetchLike;
    readonly fetchMiddleware?: readonly FetchMiddleware[];
  };
  /** Open the session store (journaled runs); `stateDir` is a `--state-dir` flag, already absolute. */
  readonly sessions?: { readonly stateDir?: string };
  /** A memory store built elsewhere, shared with other runtimes. */
  readonly memoryStore?: MemoryStore;
  /** An embedder's own tools, last in the namespace. */
  readonly customTools?: readonly Tool[];
  /** Cancels startup (introspection, connections). */
  readonly signal?: AbortSignal;
  /**
   * The application's introspection, started earlier by `startRuntimeIntrospection`: used when it
   * runs exactly what this runtime would, otherwise killed and run again. Discarded on failure.
   */
  readonly introspection?: PendingIntrospection;
  /** Told each time a knowledge search falls back from hybrid to lexical (telemetry's counter). */
  readonly onKnowledgeDegraded?: (step: 'embed_query' | 'vector_search') => void;
}

/** Knowledge as a runtime holds it: the tools, the system note, and the store when one is open. */
export interface RuntimeKnowledge {
  readonly tools: readonly Tool[];
  readonly notes: readonly string[];
  readonly reader: RunKnowledge['reader'] | undefined;
}

/** What every runtime holds, whatever its mode. Every member is shared; runs never close any of it. */
export interface RuntimeBase {
  readonly config: Config;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** What the configured provider declared; absent for a name no provider registered. */
  readonly facts: ProviderFacts | undefined;
  /**
   * Every variable no tool subprocess may inherit: every registered provider's credentials
   * (computed from the registry now, so a provider registered at run time counts), the OTLP and
   * Slack credentials, the embeddings key and the variables MCP endpoints refer to.
   */
  readonly credentialEnvNames: readonly string[];
  /** Replaces the value of every credential above (8+ characters, longest first) in text a tool produced. */
  readonly scrub: (text: string) => string;
  /**
   * The sandbox children run in (`harness.sandbox`, and stdio MCP servers with `sandbox`), checked
   * to work here; undefined when nothing asks for one.
   */
  readonly sandbox: SandboxSettings | undefined;
  readonly application: LoadedApplication | undefined;
  readonly human: readonly Tool[];
  readonly custom: readonly Tool[];
  readonly notes: readonly RuntimeNote[];
  readonly connections: ConnectionPool;
  /**
   * Tools imported from peers (`remote_tools`) and MCP servers (`mcp_clients`): imported strictly
   * and kept open for every run in `run` mode, discovered leniently in `listing` mode, none in `mcp`
   * and `lend`.
   */
  readonly imported: ImportedTools;
  /** Releases everything in reverse order of opening. Idempotent. */
  close(): Promise<void>;
}

/** A runtime runs call a model with: the provider, the stores, every tool source. */
export interface RunRuntime extends RuntimeBase {
  readonly mode: 'run';
  readonly provider: Provider;
  /** Open when the runtime was asked for journaled runs (`deps.sessions`). */
  readonly sessions: SessionStore | undefined;
  /** Open when `harness.memory` is enabled (or the caller passed one in). */
  readonly memoryStore: MemoryStore | undefined;
  readonly memoryIndex: 'opened';
  readonly knowledge: RuntimeKnowledge | undefined;
}

/** A run runtime whose runs are journaled: what a served agent and the web page need. */
export interface JournaledRuntime extends RunRuntime {
  readonly sessions: SessionStore;
}

/** `fisk mcp`: the tools and the knowledge store, no model, no memory, no journal, no imports. */
export interface McpRuntime extends RuntimeBase {
  readonly mode: 'mcp';
  readonly provider: undefined;
  readonly sessions: undefined;
  readonly memoryStore: undefined;
  readonly memoryIndex: 'opened';
  readonly knowledge: RuntimeKnowledge | undefined;
}

/** `fisk serve` lending tools over a2a: the tools a peer may call, no model, no stores, no imports. */
export interface LendRuntime extends RuntimeBase {
  readonly mode: 'lend';
  readonly provider: undefined;
  readonly sessions: undefined;
  readonly memoryStore: undefined;
  readonly memoryIndex: 'opened';
  readonly knowledge: undefined;
}

/** `fisk info`: nothing opened but what shows what a run would get. */
export interface ListingRuntime extends RuntimeBase {
  readonly mode: 'listing';
  readonly provider: undefined;
  readonly sessions: undefined;
  /** Open when memory is enabled and its store already exists (a listing creates nothing). */
  readonly memoryStore: MemoryStore | undefined;
  /**
   * Whether the memory store is known to be empty (a file directory that does not exist yet) or
   * could not be read; `opened` otherwise.
   */
  readonly memoryIndex: 'opened' | 'empty' | 'unavailable';
  /** The knowledge tools and notes; never a store (`reader` is undefined). */
  readonly knowledge: RuntimeKnowledge | undefined;
}

/**
 * What runs borrow, by what the runtime is for: `openRuntime(config, 'run', ...)` gives a
 * {@link RunRuntime}, and so on, so what a mode does not open is not there to be used.
 */
export type Runtime = RunRuntime | McpRuntime | LendRuntime | ListingRuntime;

/** The runtime `openRuntime` gives for `mode`. */
export type RuntimeOf<M extends RuntimeMode> = Extract<Runtime, { readonly mode: M }>;

/** Runtime options that ask for the session store, so the runtime comes back journaled. */
export type JournaledRuntimeDeps = RuntimeDeps & { readonly sessions: NonNullable<RuntimeDeps['sessions']> };

/**
 * Narrows a runtime handed over by a caller the type checker may not have seen (JavaScript, or a
 * value typed loosely) to one opened in `run` mode, journaled when `journaled` is true. A runtime
 * of another mode is the caller's mistake, so it throws HostError `usage` (exit 2), naming `what`
 * needed it.
 */
export function requireRunRuntime(runtime: Runtime, what: string, journaled: true): JournaledRuntime;
export function requireRunRuntime(runtime: Runtime, what: string, journaled?: boolean): RunRuntime;
export function requireRunRuntime(runtime: Runtime | undefined, what: string, journaled = false): RunRuntime {
  if (runtime?.mode !== 'run') {
    const given = runtime === undefined ? 'no runtime' : `a runtime opened in ${JSON.stringify(runtime.mode)} mode`;
    throw new HostError('usage', `${what} needs a runtime opened in run mode (openRuntime(config, 'run', ...)), but was given ${given}`);
  }
  if (journaled && runtime.sessions === undefined) {
    throw new HostError(
      'usage',
      `${what} journals every run: open the runtime with its session store (openRuntime(config, 'run', { sessions: {}, ... }))`,
    );
  }
  return runtime;
}

/** The store base from `FISK_AI_STORE_DIR`, which must be absolute when set. */
export function storeBaseFromEnv(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const base = env['FISK_AI_STORE_DIR'];
  if (base === undefined || base === '') return undefined;
  if (!isAbsolute(base))
    throw new HostError('usage', `FISK_AI_STORE_DIR is ${base}, a relative path; set it to an absolute directory or unset it`);
  return base;
}

export { credentialUnion } from './application.js';

function requireNatsContext(config: Config, key: string, backend: string): string {
  if (config.natsContext === undefined) throw ConfigError.of('missing', 'nats_context', `is required by ${key}: ${backend}`);
  return config.natsContext;
}

/** The provider a `run` runtime calls: the caller's, else the one `llm.provider` names, loaded now. */
async function runProvider(config: Config, deps: RuntimeDeps): Promise<Provider> {
  if (deps.provider !== undefined) return deps.provider;
  await loadProvider(config.llm.provider);
  const o = deps.providerOptions ?? {};
  return newProviderFromConfig(config.llm, {
    ...(o.apiKey === undefined ? {} : { apiKey: o.apiKey }),
    ...(o.baseUrl === undefined ? {} : { baseUrl: o.baseUrl, baseUrlKey: '--base-url' }),
    ...(o.fetch === undefined ? {} : { fetch: o.fetch }),
    ...(o.fetchMiddleware === undefined ? {} : { fetchMiddleware: o.fetchMiddleware }),
    env: deps.env,
  });
}

/** The mode with the model it brings: only a `run` runtime has a provider. */
type ModelPart =
  { readonly mode: 'run'; readonly provider: Provider } | { readonly mode: Exclude<RuntimeMode, 'run'>; readonly provider: undefined };

/**
 * Builds what runs of `config` borrow, shaped by `mode` (a {@link RunRuntime} for `run`, and so
 * on; journaled when `deps.sessions` is given). Throws before any model is contacted when something
 * the configuration names cannot be had (an application that will not introspect, a missing
 * bucket, a stale knowledge index), with an error naming what to change; a mode that is not one of
 * {@link RUNTIME_MODES} is the caller's mistake, HostError `usage`. Whatever was opened before a
 * failure is closed again.
 */
export function openRuntime(config: Config, mode: 'run', deps: JournaledRuntimeDeps): Promise<JournaledRuntime>;
export function openRuntime<M extends RuntimeMode>(config: Config, mode: M, deps: RuntimeDeps): Promise<RuntimeOf<M>>;
export async function openRuntime(config: Config, mode: RuntimeMode, deps: RuntimeDeps): Promise<Runtime> {
  if (!RUNTIME_MODES.some((m) => m === mode)) {
    throw new HostError('usage', `openRuntime: unknown mode ${JSON.stringify(mode)}; the modes are ${RUNTIME_MODES.join(', ')}`);
  }
  const closers: (() => Promise<void> | void)[] = [];
  const notes: RuntimeNote[] = [];
  // an early introspection this runtime does not claim is killed when it closes (a no-op once claimed)
  const early = deps.introspection;
  if (early !== undefined) closers.push(() => early.discard());
  const connections = new ConnectionPool(deps.env, `fisk-ai ${config.identity}`);
  closers.push(() => connections.close());
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    for (const c of closers.reverse()) {
      try {
        await c();
      } catch {
        // one resource failing to close must not keep the others open
      }
    }
  };
  try {
    const facts = providerFacts(config.llm.provider);
    // a run refuses an unknown provider; a listing goes on, and says so where the operator looks
    if (facts === undefined && mode === 'listing') {
      notes.push({ level: 'warning', key: 'llm.provider', message: `${unknownProviderMessage(config.llm.provider)}; fisk run refuses it` });
    }
    const credentials = credentialUnion(config, deps.env);
    // a private key or ID token kept in a file, or a header written out in agent.yaml, is a credential no variable carries
    const literals = credentialLiterals(config).map((l) => ({ name: l.key, value: l.value }));
    const scrub = secretScrubber([...secretsFromEnv(deps.env, credentials), ...secretsFromFiles(credentialFiles(config)), ...literals]);
    const storeBase = deps.storeBase ?? storeBaseFromEnv(deps.env);
    // checked before anything starts: a sandbox that cannot run here stops the runtime from opening
    const sandbox = openSandbox(config, deps.env, { storeBase, stateDir: deps.sessions?.stateDir });

    // the model is built first, so a missing key fails before any store or peer is contacted
    const model: ModelPart = mode === 'run' ? { mode, provider: await runProvider(config, deps) } : { mode, provider: undefined };

    let sessions: SessionStore | undefined;
    if (mode === 'run' && deps.sessions !== undefined) {
      const { openSessionStore, sessionBackendNeeds } = await import('../runstate/registry.js');
      const choice = config.harness.sessions;
      const stateDir = deps.sessions.stateDir;
      const needsNats = sessionBackendNeeds(choice.backend).includes('nats') && stateDir === undefined;
      const nats = needsNats
        ? await connections.connection(requireNatsContext(config, 'harness.sessions.backend', choice.backend))
        : undefined;
      sessions = await openSessionStore(choice, {
        env: deps.env,
        cwd: config.baseDir,
        ...(stateDir === undefined ? {} : { stateDir }),
        ...(nats === undefined ? {} : { nats }),
      });
      const opened = sessions;
      closers.push(() => opened.close?.());
    }

    let memoryStore: MemoryStore | undefined;
    let memoryIndex: Runtime['memoryIndex'] = 'opened';
    const memory = config.harness.memory;
    // the memory backends load only for a configuration with memory
    const backends = memory.enabled && mode !== 'mcp' ? await import('../memory/backends.js') : undefined;
    if (mode === 'listing' && memory.enabled && !memory.noIndex && backends !== undefined) {
      const { memoryBackend, memoryStorePaths, openMemoryStore } = backends;
      // a listing shows the index a run would inject, without creating anything to do so
      const context = { identity: config.identity, baseDir: storeBase ?? config.baseDir, natsContext: config.natsContext };
      try {
        const paths = memoryStorePaths(memory, context);
        if (paths.length > 0) {
          if (paths.every((p) => existsSync(p))) memoryStore = await openMemoryStore(memory, context);
          else memoryIndex = 'empty';
        } else {
          const needsNats = memoryBackend(memory.backend).needs.includes('nats');
          const nats = needsNats
            ? (await connections.connection(requireNatsContext(config, 'harness.memory.backend', memory.backend))).connection
            : undefined;
          memoryStore = await openMemoryStore(memory, { ...context, ...(nats === undefined ? {} : { nats }) });
        }
      } catch (err) {
        memoryIndex = 'unavailable';
        notes.push({
          level: 'warning',
          key: 'harness.memory',
          message: `the memory index a run adds to the prompt is not shown: ${err instanceof Error ? err.message : String(err)}`,
        });
      }
    }
    if (mode === 'run' && memory.enabled && backends !== undefined) {
      const { memoryBackend, openMemoryStore } = backends;
      if (deps.memoryStore !== undefined) {
        memoryStore = deps.memoryStore;
      } else {
        const needsNats = memoryBackend(memory.backend).needs.includes('nats');
        const nats = needsNats
          ? (await connections.connection(requireNatsContext(config, 'harness.memory.backend', memory.backend))).connection
          : undefined;
        memoryStore = await openMemoryStore(memory, {
          identity: config.identity,
          baseDir: storeBase ?? config.baseDir,
          natsContext: config.natsContext,
          ...(nats === undefined ? {} : { nats }),
        });
      }
    }

    let knowledge: RuntimeKnowledge | undefined;
    const k = config.harness.knowledge;
    // no built-in is lent over a2a, so lending opens no knowledge store
    const servesKnowledge = mode === 'mcp' ? (config.expose.mcp?.builtins.length ?? 0) > 0 : mode !== 'lend';
    if (k.enabled && servesKnowledge) {
      // the store and its SQLite binding load only for a configuration that uses knowledge
      const { knowledgeToolsForListing, prepareRunKnowledge } = await import('../knowledge/run-knowledge.js');
      if (mode === 'listing') {
        const { knowledgeSystemNote } = await import('../knowledge/tools.js');
        knowledge = { tools: knowledgeToolsForListing(k), notes: [knowledgeSystemNote(k.readTool)], reader: undefined };
      } else {
        // verified here, before any model or client is served: a stale index stops startup
        const opened = prepareRunKnowledge(k, { cwd: config.baseDir, storeBase, env: deps.env, onDegraded: deps.onKnowledgeDegraded });
        if (opened !== undefined) {
          closers.push(() => opened.reader.close());
          knowledge = { tools: opened.tools, notes: opened.notes, reader: opened.reader };
        }
      }
    }

    const loadOptions = runtimeApplicationOptions(config, deps.env, credentials);
    if (loadOptions === undefined) await early?.discard();
    const application =
      loadOptions === undefined
        ? undefined
        : await loadApplicationTools({
            ...loadOptions,
            ...(deps.signal === undefined ? {} : { signal: deps.signal }),
            ...(early === undefined ? {} : { pending: early }),
            ...(sandbox === undefined ? {} : { sandbox }),
          });

    const human = config.harness.humanInTheLoop ? humanTools() : [];
    const custom = deps.customTools ?? [];
    // imported tools are never served again: a runtime that serves tools imports none
    const imported =
      mode === 'mcp' || mode === 'lend'
        ? NO_IMPORTS
        : await openImports(
            config,
            mode === 'run' ? 'strict' : 'lenient',
            {
              env: deps.env,
              credentialEnvNames: credentials,
              scrub,
              connections,
              ...(sandbox === undefined ? {} : { sandbox }),
              localNames: await localToolNames(config, {
                application: application?.source.tools ?? [],
                human,
                knowledge: knowledge?.tools ?? [],
                custom,
              }),
              ...(deps.signal === undefined ? {} : { signal: deps.signal }),
            },
            notes,
          );
    // closed first: a stdio server stops before the connections and stores it might still reach
    closers.push(() => imported.close());

    const base: RuntimeBase = {
      config,
      env: deps.env,
      facts,
      credentialEnvNames: credentials,
      scrub,
      sandbox,
      application,
      human,
      custom,
      notes,
      connections,
      imported,
      close,
    };
    switch (model.mode) {
      case 'run':
        return { ...base, mode: model.mode, provider: model.provider, sessions, memoryStore, memoryIndex: 'opened', knowledge };
      case 'mcp':
        return {
          ...base,
          mode: model.mode,
          provider: undefined,
          sessions: undefined,
          memoryStore: undefined,
          memoryIndex: 'opened',
          knowledge,
        };
      case 'lend':
        return {
          ...base,
          mode: model.mode,
          provider: undefined,
          sessions: undefined,
          memoryStore: undefined,
          memoryIndex: 'opened',
          knowledge: undefined,
        };
      case 'listing':
        return { ...base, mode: model.mode, provider: undefined, sessions: undefined, memoryStore, memoryIndex, knowledge };
      default: {
        const never: never = model;
        return never;
      }
    }
  } catch (err) {
    await close();
    throw err;
  }
}
