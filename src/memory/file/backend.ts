import { isAbsolute, join } from 'node:path';
import { z } from 'zod';
import { decodeOptions } from '../../config/index.js';
import type { BackendContext, BackendFactory, InfoRow } from '../registry.js';
import { FILE_BACKEND, FileStore } from './file-store.js';

/** `harness.memory.options` for the file backend. */
export const FileOptionsSchema = z.strictObject({
  /** Where `<key>.md` files live; default `memory/<identity>`. */
  directory: z.string().optional(),
});
export type FileOptions = z.infer<typeof FileOptionsSchema>;

/** Decodes the options block strictly: an unknown key names itself and the accepted ones. */
export function decodeFileOptions(options: string): FileOptions {
  return decodeOptions(options, FileOptionsSchema, 'harness.memory.options', FILE_BACKEND);
}

/**
 * The directory a file store uses: the configured one or `memory/<identity>`; a relative path
 * resolves under the store base when one is set, else the working directory.
 */
export function fileDirectory(options: FileOptions, context: BackendContext): string {
  const configured = options.directory?.trim() ?? '';
  const dir = configured === '' ? join('memory', context.identity) : configured;
  return isAbsolute(dir) ? dir : join(context.baseDir ?? process.cwd(), dir);
}

/** The file backend's registry entry. */
export const fileBackend: BackendFactory = {
  needs: [],
  async open(options, context) {
    return FileStore.open(fileDirectory(decodeFileOptions(options), context), { create: context.lookOnly !== true });
  },
  describe(options, context): readonly InfoRow[] {
    return [{ label: 'Directory', value: fileDirectory(decodeFileOptions(options), context) }];
  },
  paths(options, context): readonly string[] {
    return [fileDirectory(decodeFileOptions(options), context)];
  },
};
