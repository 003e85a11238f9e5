// Preloaded into a measured child (node --require): at exit, writes the process's peak resident set
// size in KiB to the file named by FISK_BENCH_RSS_FILE. CommonJS and preloaded with --require, as
// the fisk program is CommonJS: an ES module preloaded with --import would start the ES module
// loader in a process that otherwise never starts it, and count its memory against fisk.
const { writeFileSync } = require('node:fs');

const file = process.env.FISK_BENCH_RSS_FILE;
if (file) process.on('exit', () => writeFileSync(file, String(process.resourceUsage().maxRSS)));
