/**
 * `fisk memory ls|show|rm`: what an agent remembers, read from the store its `harness.memory`
 * names (the file directory, or the JetStream KV bucket through `nats_context`). Memory text was
 * written by a model, so it is printed cleaned of terminal sequences and control characters.
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { Config } from '../../config/index.js';
import type { NatsConn } from '../../conns/index.js';
import type { Store } from '../../memory/index.js';
import { sanitizeMemoryText } from '../../memory/sanitize.js';
import { CliError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import { println } from '../io.js';

interface MemoryFlags {
  readonly config: string;
}

/** The one line a model-written text is shown on. */
function singleLine(text: string): string {
  return sanitizeMemoryText(text).replace(/\s+/g, ' ').trim();
}

/** Opens the store the configuration names, runs `fn` on it, and closes any connection opened for it. */
async function withStore<T>(io: Io, flags: MemoryFlags, fn: (store: Store, config: Config) => Promise<T>): Promise<T> {
  const [{ ConfigError, parseConfigForMode }, { connectNats }, { memoryBackend, openMemoryStore }, { storeBaseFromEnv }] =
    await Promise.all([
      import('../../config/index.js'),
      import('../../conns/index.js'),
      import('../../memory/index.js'),
      import('../../host/index.js'),
    ]);
  const config = parseConfigForMode({ path: resolve(io.cwd, flags.config) }, 'info');
  const memory = config.harness.memory;
  // the directory a run uses: under FISK_AI_STORE_DIR when set, else beside agent.yaml
  const baseDir = storeBaseFromEnv(io.env) ?? config.baseDir;
  if (!memory.enabled)
    println(io.err, `note: harness.memory.enabled is false in ${flags.config}; showing the ${memory.backend} store it would use`);
  let close: (() => Promise<void>) | undefined;
  try {
    let nats: NatsConn['connection'] | undefined;
    if (memoryBackend(memory.backend).needs.includes('nats')) {
      if (config.natsContext === undefined)
        throw ConfigError.of('missing', 'nats_context', `is required by harness.memory.backend: ${memory.backend}`);
      const conn = await connectNats(config.natsContext, { env: io.env, name: 'fisk-ai memory' });
      nats = conn.connection;
      close = () => conn.connection.close();
    }
    const store = await openMemoryStore(memory, {
      identity: config.identity,
      baseDir,
      natsContext: config.natsContext,
      ...(nats === undefined ? {} : { nats }),
      lookOnly: true,
    });
    return await fn(store, config);
  } finally {
    await close?.().catch(() => undefined);
  }
}

/** Registers `fisk memory` and its subcommands. */
export function registerMemory(program: Command, io: Io): void {
  const mem = program
    .command('memory')
    .description("inspect what an agent remembers (harness.memory's store)")
    .option('--config <file>', 'the agent configuration', 'agent.yaml');
  const flags = (cmd: Command): MemoryFlags => cmd.optsWithGlobals<MemoryFlags>();

  mem
    .command('ls')
    .description('list every memory: key and description')
    .action(async (_o: unknown, cmd: Command) => {
      await withStore(io, flags(cmd), async (store, config) => {
        const items = await store.list();
        if (items.length === 0) {
          println(io.err, `${config.identity} remembers nothing yet`);
          return;
        }
        const width = Math.max(...items.map((i) => i.key.length));
        for (const item of items) println(io.out, `${item.key.padEnd(width)}  ${singleLine(item.description)}`);
      });
    });

  mem
    .command('show <key>')
    .description('print one memory: its description, then its content')
    .action(async (key: string, _o: unknown, cmd: Command) => {
      await withStore(io, flags(cmd), async (store) => {
        const entry = await store.read(key);
        println(io.out, `# ${singleLine(entry.description)}`);
        println(io.out);
        const content = sanitizeMemoryText(entry.content);
        io.out.write(content.endsWith('\n') ? content : `${content}\n`);
      });
    });

  mem
    .command('rm <key>')
    .description('remove one memory')
    .action(async (key: string, _o: unknown, cmd: Command) => {
      await withStore(io, flags(cmd), async (store) => {
        if (!(await store.delete(key))) throw new CliError(`no memory ${JSON.stringify(key)}: fisk memory ls lists the keys`, EXIT.error);
        println(io.err, `removed ${key}`);
      });
    });
}
