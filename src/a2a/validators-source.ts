/**
 * Writes the validating functions of every schema out as one CommonJS module (ajv's standalone
 * code), which the build saves as `validators.generated.cjs` beside `validators.js`. The module
 * exports the fingerprint it was made from and `create(formats)`, which returns both forms keyed
 * by protocol id; the formats are passed in, so their code lives in one place (`codec.ts`).
 */
import { _, Ajv2020 } from 'ajv/dist/2020.js';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { PROTOCOLS } from './protocol.js';
import { allSchemas } from './schemas.js';
import type { SchemaMode } from './schemas.js';
import { ajvOptions, schemaFingerprint, schemaIdOf } from './validators.js';

function formCode(mode: SchemaMode): string {
  const ajv = new Ajv2020({ ...ajvOptions(mode), code: { source: true, formats: _`formats` } });
  // the check itself is passed to `create`; here only its name matters
  ajv.addFormat('date-time', { type: 'string', validate: () => true });
  for (const schema of allSchemas(mode)) ajv.addSchema(schema);
  return standaloneCode.default(ajv, Object.fromEntries(PROTOCOLS.map((p) => [p, schemaIdOf(p)])));
}

/** The text of the generated module. */
export function validatorModuleSource(): string {
  const form = (mode: SchemaMode): string => `(function () {\nconst exports = {};\n${formCode(mode)}\nreturn exports;\n})()`;
  return [
    '// Generated from src/a2a/schemas.ts by the build (src/a2a/validators-source.ts); do not edit.',
    "'use strict';",
    `exports.fingerprint = ${JSON.stringify(schemaFingerprint())};`,
    `exports.create = function create(formats) {\nreturn { strict: ${form('strict')}, lenient: ${form('lenient')} };\n};`,
    '',
  ].join('\n');
}
