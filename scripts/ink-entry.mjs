// The entry of the bundled program's Ink module (dist/bin/chunks/vendor-ink.mjs): Ink, and the copy of
// chalk it draws with, so that the full-screen view can set the colours Ink's text takes.
export * from 'ink';
export { default as drawingChalk } from 'chalk';
