/**
 * Whether `fisk run` takes the full screen. Kept apart from the view itself, so deciding costs
 * nothing: the terminal libraries load only when the answer is yes.
 */

/** Both ends are terminals and neither `--no-tui`, `NO_TUI` nor `harness.no_tui` turned it off. */
export function shouldUseFullScreen(
  stdinIsTty: boolean,
  stdoutIsTty: boolean,
  disabled: { readonly flag: boolean; readonly env: boolean; readonly config: boolean },
): boolean {
  return stdinIsTty && stdoutIsTty && !disabled.flag && !disabled.env && !disabled.config;
}
