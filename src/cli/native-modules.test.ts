import { describe, expect, it } from 'vitest';
import { nativeModuleAdvice } from './native-modules.js';

describe('nativeModuleAdvice', () => {
  it('turns the loader list of paths tried into the package to rebuild and where', () => {
    const err = new Error(
      'Could not locate the bindings file. Tried:\n → /opt/fisk/lib/node_modules/fisk-ai/node_modules/better-sqlite3/build/better_sqlite3.node\n → /opt/fisk/lib/node_modules/fisk-ai/node_modules/better-sqlite3/build/Release/better_sqlite3.node',
    );
    expect(nativeModuleAdvice(err)).toBe(
      "the native module better-sqlite3 is not built (npm did not run its install script). Rebuild it with 'npm rebuild better-sqlite3' in /opt/fisk/lib/node_modules/fisk-ai, or reinstall fisk-ai letting npm run the install scripts of better-sqlite3 and fs-ext (a C compiler is needed where no prebuilt binary exists)",
    );
  });
  it('names a module built for another Node.js', () => {
    const err = Object.assign(
      new Error(
        "The module '/srv/app/node_modules/fs-ext/build/Release/fs-ext.node'\nwas compiled against a different Node.js version using\nNODE_MODULE_VERSION 108. This version of Node.js requires\nNODE_MODULE_VERSION 115.",
      ),
      { code: 'ERR_DLOPEN_FAILED' },
    );
    expect(nativeModuleAdvice(err)).toMatch(
      /^the native module fs-ext was built for another Node\.js version or platform than this one \(v\d+\.\d+\.\d+\)\. Rebuild it with 'npm rebuild fs-ext' in \/srv\/app,/,
    );
  });
  it('leaves every other error alone', () => {
    expect(nativeModuleAdvice(new Error('connection refused'))).toBeUndefined();
    expect(nativeModuleAdvice('Could not locate the bindings file')).toBeUndefined();
    expect(nativeModuleAdvice(Object.assign(new Error('some other addon failed'), { code: 'ERR_DLOPEN_FAILED' }))).toBeUndefined();
  });
});
