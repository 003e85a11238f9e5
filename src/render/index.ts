/** Event-to-line rendering shared by the surfaces: the terminal lines of `fisk run` and `fisk session show --transcript`, and the full-screen view. */
export { renderEvent, resultLines, CALL_PREFIX, RESULT_PREFIX, WARNING_PREFIX, THINKING_PREFIX } from './line-renderer.js';
export type { LineOptions } from './line-renderer.js';
export { formatAnswer, loadMarkdown, shouldRenderMarkdown } from './answer.js';
export type { MarkdownRenderer } from './answer.js';
export { summaryLine, formatLatency } from './summary.js';
export { LineSurface } from './line-surface.js';
export type { SurfaceStyle } from './line-surface.js';
export { shouldColorLines, toneFor, paint, LINE_TONES } from './line-colour.js';
export type { LineTone } from './line-colour.js';
