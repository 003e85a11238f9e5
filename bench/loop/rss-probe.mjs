// Preloaded with --import: writes the process's peak resident set size (KiB) to
// $FISK_BENCH_RSS_FILE when it exits.
import { writeFileSync } from 'node:fs';

const file = process.env.FISK_BENCH_RSS_FILE;
if (file) process.on('exit', () => writeFileSync(file, String(process.resourceUsage().maxRSS)));
