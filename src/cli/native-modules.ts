/**
 * An install whose native modules were not built (npm declined their install scripts) or were
 * built for another Node.js fails with the loader's own message: a list of paths tried, or a
 * version number. This turns it into what to do about it.
 */

/** The native modules fisk-ai loads: the knowledge index and sessions, and file locks. */
const NATIVE = ['better-sqlite3', 'fs-ext'] as const;

/** Where the native module sits in a path the loader names: the package directory that holds it, and its name. */
function locate(text: string): { readonly name: string; readonly root: string } | undefined {
  for (const name of NATIVE) {
    const at = text.indexOf(`/node_modules/${name}/`);
    if (at < 0) continue;
    const start = text.lastIndexOf(' ', at) + 1;
    const root = text.slice(start, at).replace(/^[^/]*/, '');
    return { name, root: root === '' ? '.' : root };
  }
  return undefined;
}

/**
 * The advice for an error that says a native module cannot be loaded, or undefined for any other
 * error. Reads the `bindings` loader's "Could not locate the bindings file" and Node's
 * `ERR_DLOPEN_FAILED` (a module built for another Node.js version or platform).
 */
export function nativeModuleAdvice(err: unknown): string | undefined {
  if (!(err instanceof Error)) return undefined;
  const code = (err as NodeJS.ErrnoException).code;
  const missing = err.message.startsWith('Could not locate the bindings file');
  const foreign = code === 'ERR_DLOPEN_FAILED' || err.message.includes('NODE_MODULE_VERSION');
  if (!missing && !foreign) return undefined;
  const where = locate(err.message);
  if (where === undefined) return undefined;
  const why = missing
    ? 'is not built (npm did not run its install script)'
    : `was built for another Node.js version or platform than this one (${process.version})`;
  return (
    `the native module ${where.name} ${why}. Rebuild it with 'npm rebuild ${where.name}' in ${where.root}, ` +
    `or reinstall fisk-ai letting npm run the install scripts of ${NATIVE.join(' and ')} (a C compiler is needed where no prebuilt binary exists)`
  );
}
