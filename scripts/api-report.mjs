#!/usr/bin/env node
// Checks the package's public API against the reports committed in api/: one for the main entry
// (`fisk-ai`) and one for the test doubles (`fisk-ai/agenttest`), made by API Extractor from the
// declarations in dist/. A change to the surface fails the check until the report is updated on
// purpose with `npm run api -- --update`, which rewrites the reports for review in the same commit.
// The declarations are rebuilt first when a source file is newer than them.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { Extractor, ExtractorConfig } from '@microsoft/api-extractor';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const CONFIGS = ['api-extractor.json', 'api-extractor.agenttest.json'];
const update = process.argv.includes('--update');

function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

const declarations = join(ROOT, 'dist', 'index.d.ts');
if (!existsSync(declarations) || statSync(declarations).mtimeMs < newestSource(join(ROOT, 'src'))) {
  process.stderr.write('api: the declarations in dist/ are older than src/; compiling\n');
  execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
}

let failed = false;
for (const file of CONFIGS) {
  const config = ExtractorConfig.loadFileAndPrepare(join(ROOT, file));
  const result = Extractor.invoke(config, { localBuild: update, showVerboseMessages: false });
  if (result.succeeded) continue;
  failed = true;
  const report = config.reportConfigs[0]?.fileName ?? 'the report';
  if (result.errorCount === 0 && result.apiReportChanged) {
    process.stderr.write(`api: the declarations in dist/ (${file}) differ from api/${report}; `);
    process.stderr.write('if the change is meant, run `npm run api -- --update` and commit the report\n');
  } else {
    process.stderr.write(`api: ${file}: ${result.errorCount} errors\n`);
  }
}
process.exitCode = failed ? 1 : 0;
