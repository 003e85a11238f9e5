/**
 * Text about a failure, made fit to leave the process: a refusal or an error sent to a peer
 * names what went wrong, never where this host keeps its files.
 */

/**
 * An absolute, home-relative or dot-relative file path as a token of its own: a `/` that starts a
 * word (not the `//` of a URL or the middle of a ratio) and runs to the next space, quote or
 * bracket. A trailing `:` or `.` ends the sentence rather than the path.
 */
const PATH = /(?<![\w:/.~-])(?:~|\.{1,2})?\/(?!\/)[^\s"'`<>|;,()[\]{}]*[^\s"'`<>|;,()[\]{}:.]/g;

/** What a path is replaced with. */
export const PATH_PLACEHOLDER = "(a path on the agent's host)";

/** `text` with every file path in it replaced by a placeholder. */
export function withoutPaths(text: string): string {
  return text.replace(PATH, PATH_PLACEHOLDER);
}
