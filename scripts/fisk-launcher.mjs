// The text of dist/bin/fisk.cjs, the program the package installs, which bundle-cli.mjs writes
// beside the bundle: a CommonJS launcher that starts dist/bin/main.cjs with V8's code cache.
export const LAUNCHER = `#!/usr/bin/env node
'use strict';
// \`fisk\`, the program the package installs: the bundled CLI (main.cjs and its chunks beside it)
// started with V8's code cache. Compiling the bundle's JavaScript was about a quarter of a short
// command's CPU time; the build runs a few commands once and keeps what V8 compiled for each
// chunk in cache/<chunk>.v8, and this file hands that back to V8 as each chunk loads. A cache
// made by another Node or V8 build is rejected by V8 and the chunk compiles as usual; chunk names
// carry a hash of their content, so a cache never meets a chunk it was not made from.
// FISK_CODE_CACHE_WRITE=1 (set by the build only) writes the caches of the chunks a run loaded.
const Module = require('node:module');
const { existsSync, mkdirSync, readFileSync, writeFileSync } = require('node:fs');
const { basename, dirname, join } = require('node:path');
const vm = require('node:vm');

const cacheDir = join(__dirname, 'cache');
const writing = process.env.FISK_CODE_CACHE_WRITE === '1';
const dynamicImport = vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER;

// Node 20 calls handing import() back to its own loader experimental and says so on stderr the
// first time a cached chunk imports an ES module; that line is about this launcher, not about the
// user's agent, and would break a log read as JSON lines, so it alone is not printed.
if (dynamicImport !== undefined) {
  const emitWarning = process.emitWarning;
  process.emitWarning = function emitWarningExceptLoader(warning, ...rest) {
    const text = typeof warning === 'string' ? warning : warning?.message;
    if (typeof text === 'string' && text.includes('USE_MAIN_CONTEXT_DEFAULT_LOADER')) return;
    return emitWarning.call(process, warning, ...rest);
  };
}

/** Node's own \`require\` for a module, as its loader builds it. */
function requireFor(mod) {
  const req = (id) => mod.require(id);
  req.resolve = (request, options) => Module._resolveFilename(request, mod, false, options);
  req.resolve.paths = (request) => Module._resolveLookupPaths(request, mod);
  req.main = process.mainModule;
  req.extensions = Module._extensions;
  req.cache = Module._cache;
  return req;
}

if (dynamicImport !== undefined && (writing || existsSync(cacheDir))) {
  const compile = Module.prototype._compile;
  const made = [];
  Module.prototype._compile = function compileWithCache(content, filename) {
    // only the bundle's own files: main.cjs and the chunks (a relative import() stays with Node)
    const own = filename === join(__dirname, 'main.cjs') || dirname(filename) === join(__dirname, 'chunks');
    if (!own || content.includes('import("./')) return compile.call(this, content, filename);
    const file = join(cacheDir, \`\${basename(filename)}.v8\`);
    let cachedData;
    if (!writing) {
      try {
        cachedData = readFileSync(file);
      } catch {
        // no cache for this chunk: it compiles as usual
      }
    }
    // a hashbang line is a comment to Node's own loader; to V8 it is one only at a file's very start
    const source = content.startsWith('#!') ? \`//\${content.slice(2)}\` : content;
    const script = new vm.Script(Module.wrap(source), { filename, cachedData, importModuleDynamically: dynamicImport });
    if (writing) made.push([file, script]);
    const wrapper = script.runInThisContext({ displayErrors: true });
    return wrapper.call(this.exports, this.exports, requireFor(this), this, filename, dirname(filename));
  };
  if (writing) {
    process.once('exit', () => {
      mkdirSync(cacheDir, { recursive: true });
      for (const [file, script] of made) if (!existsSync(file)) writeFileSync(file, script.createCachedData());
    });
  }
}

require('./main.cjs');
`;
