/**
 * Why a sandboxed program never ran, in the words of the fix. bubblewrap reports a program it
 * cannot execute as a failed setup, but the usual cause is the file itself, not the sandbox: a
 * program without execute permission is named as such, with the command that fixes it.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { isAbsolute } from 'node:path';

/** True when `binary` is a regular file on this machine that may not be executed. */
function notExecutable(binary: string): boolean {
  if (!isAbsolute(binary)) return false;
  try {
    if (!statSync(binary).isFile()) return false;
  } catch {
    return false;
  }
  try {
    accessSync(binary, constants.X_OK);
    return false;
  } catch {
    return true;
  }
}

/**
 * The fix for a sandbox that could not start `binary`: make the file executable when that is what
 * stopped it, otherwise the sandbox settings to look at.
 */
export function sandboxStartFix(binary: string): string {
  if (notExecutable(binary)) return `${binary} is not executable; make it so with chmod +x ${binary} (harness.sandbox is not the cause)`;
  return 'check harness.sandbox';
}
