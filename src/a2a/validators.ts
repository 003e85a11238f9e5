/**
 * The validating functions of every schema, in both forms. The build writes them out once as
 * plain code (`validators.generated.cjs` beside this module, from `validators-source.ts`), so a
 * process starts without loading ajv's compiler or compiling thirty-odd schemas. That file names
 * the fingerprint of the schemas, ajv's version and the options it was made from; a file that is
 * missing or made from anything else is not used, and the schemas are compiled here instead, so
 * what validates is always what `schemas.ts` says.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type * as Ajv2020Module from 'ajv/dist/2020.js';
import type { Options, ValidateFunction } from 'ajv/dist/2020.js';
import { A2aError } from './errors.js';
import { PROTOCOLS, schemaFileOf } from './protocol.js';
import type { ProtocolId } from './protocol.js';
import { allSchemas, SCHEMA_BASE } from './schemas.js';
import type { SchemaMode } from './schemas.js';

export type Validators = ReadonlyMap<ProtocolId, ValidateFunction>;
/** A named format's check, as ajv and the generated code both call it. */
export type Formats = Readonly<Record<string, { readonly type: 'string'; readonly validate: (s: string) => boolean }>>;

const require = createRequire(import.meta.url);

/**
 * Where the generated module is looked for: beside this module when it runs as compiled, and in
 * the package's `dist/a2a` when it runs from the bundled CLI (`dist/bin/fisk.cjs` or one of its
 * chunks in `dist/bin/chunks`). Whichever exists first is used; its fingerprint still decides.
 */
export const GENERATED_VALIDATORS: readonly URL[] = [
  new URL('./validators.generated.cjs', import.meta.url),
  new URL('../a2a/validators.generated.cjs', import.meta.url),
  new URL('../../a2a/validators.generated.cjs', import.meta.url),
];

/** The ajv options of one form; the generated code is made with these and `code.source`. */
export function ajvOptions(mode: SchemaMode): Options {
  return {
    strict: true,
    strictTypes: false,
    allErrors: false,
    // every pattern is ASCII, so none needs the slower Unicode-aware regular expressions
    unicodeRegExp: false,
    ...(mode === 'lenient' ? { removeAdditional: true } : {}),
  };
}

/** The id ajv knows a protocol's schema by. */
export function schemaIdOf(protocol: ProtocolId): string {
  return `${SCHEMA_BASE}${schemaFileOf(protocol)}`;
}

let fingerprintMemo: string | undefined;

/** What generated code must have been made from: both forms of every schema, the options and ajv's version. */
export function schemaFingerprint(): string {
  if (fingerprintMemo === undefined) {
    const ajvVersion = (require('ajv/package.json') as { version: string }).version;
    const made = {
      ajv: ajvVersion,
      forms: (['strict', 'lenient'] as const).map((m) => ({ options: ajvOptions(m), schemas: allSchemas(m) })),
    };
    fingerprintMemo = createHash('sha256').update(JSON.stringify(made)).digest('hex');
  }
  return fingerprintMemo;
}

/** Compiles one form with ajv, loaded only when the generated code cannot be used. */
export function compileValidators(mode: SchemaMode, formats: Formats): Validators {
  const { Ajv2020 } = require('ajv/dist/2020.js') as typeof Ajv2020Module;
  const ajv = new Ajv2020(ajvOptions(mode));
  for (const [name, format] of Object.entries(formats)) ajv.addFormat(name, format);
  for (const schema of allSchemas(mode)) ajv.addSchema(schema);
  const map = new Map<ProtocolId, ValidateFunction>();
  for (const p of PROTOCOLS) {
    const v = ajv.getSchema(schemaIdOf(p));
    if (v === undefined) throw new A2aError('registry', `schema for ${p} did not compile`);
    map.set(p, v as ValidateFunction);
  }
  return map;
}

/** The shape of the generated module. */
interface GeneratedModule {
  readonly fingerprint: string;
  create(formats: Formats): Readonly<Record<SchemaMode, Readonly<Record<string, ValidateFunction>>>>;
}

/**
 * The validators of the generated module at `file`, or `undefined` when there is no such file or
 * it was made from other schemas, options or another ajv (the caller compiles instead).
 */
export function loadGeneratedValidators(
  files: URL | readonly URL[],
  formats: Formats,
): Readonly<Record<SchemaMode, Validators>> | undefined {
  let mod: GeneratedModule | undefined;
  for (const file of files instanceof URL ? [files] : files) {
    const path = fileURLToPath(file);
    if (!existsSync(path)) continue;
    mod = require(path) as GeneratedModule;
    break;
  }
  if (mod === undefined) return undefined;
  if (mod.fingerprint !== schemaFingerprint() || typeof mod.create !== 'function') return undefined;
  const made = mod.create(formats);
  const pick = (mode: SchemaMode): Validators | undefined => {
    const map = new Map<ProtocolId, ValidateFunction>();
    for (const p of PROTOCOLS) {
      const v = made[mode][p];
      if (typeof v !== 'function') return undefined;
      map.set(p, v);
    }
    return map;
  };
  const strict = pick('strict');
  const lenient = pick('lenient');
  return strict === undefined || lenient === undefined ? undefined : { strict, lenient };
}
