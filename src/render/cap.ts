/**
 * Caps what a person is shown, never what a tool receives: a 65 KB argument or a 5,000-character
 * command line is cut for display with a marker saying how much was left out.
 */

/** The longest approval command line shown before it is cut. */
export const APPROVAL_LINE_CAP = 2000;

/** Tool lines on a stream that is not a terminal (a log, a pipe) are cut at this length. */
export const PIPED_LINE_CAP = 2000;

/** Cuts `line` to at most `width` characters (code points), ending it with a marker when cut. */
export function capLine(line: string, width: number): string {
  const chars = Array.from(line);
  if (chars.length <= width) return line;
  const omitted = (n: number): string => ` … (+${n} chars)`;
  // the marker counts against the width, so the cut line still fits
  let keep = Math.max(1, width - omitted(chars.length).length);
  keep = Math.min(keep, chars.length - 1);
  return `${chars.slice(0, keep).join('')}${omitted(chars.length - keep)}`;
}

/** The width tool lines are cut to: the terminal's, or {@link PIPED_LINE_CAP} elsewhere. */
export function lineWidthFor(stream: { readonly isTTY?: boolean; readonly columns?: number }): number {
  if (stream.isTTY !== true) return PIPED_LINE_CAP;
  const columns = stream.columns;
  return columns !== undefined && columns >= 20 ? columns : 80;
}
