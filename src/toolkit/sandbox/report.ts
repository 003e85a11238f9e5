/** How `fisk info` and reports show a child's sandbox. Types only, so the browser page may share them. */
export interface SandboxReport {
  readonly network: boolean;
  /** Writable paths; `<work directory>` stands for the call's work directory. */
  readonly writable: readonly string[];
  readonly hide: readonly string[];
  /** The `harness.sandbox.tools` entries (by index) that widened this tool's sandbox. */
  readonly grants: readonly number[];
}
