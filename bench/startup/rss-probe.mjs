// Preloaded into a measured child (node --import): at exit, writes the process's peak resident set
// size in KiB to the file named by FISK_BENCH_RSS_FILE.
import { writeFileSync } from 'node:fs';

const file = process.env.FISK_BENCH_RSS_FILE;
if (file) process.on('exit', () => writeFileSync(file, String(process.resourceUsage().maxRSS)));
