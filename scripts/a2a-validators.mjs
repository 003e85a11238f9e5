// Writes the a2a schema validators out as code (dist/a2a/validators.generated.cjs), run by
// `npm run build` after the TypeScript build, so a process does not compile the schemas at start.
import { writeFileSync } from 'node:fs';
import { validatorModuleSource } from '../dist/a2a/validators-source.js';
import { GENERATED_VALIDATORS } from '../dist/a2a/validators.js';

writeFileSync(GENERATED_VALIDATORS[0], validatorModuleSource());
