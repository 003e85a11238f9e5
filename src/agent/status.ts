/**
 * How a run ended: a closed vocabulary. Every surface maps it (the CLI to an exit code, a2a to a
 * stop reason, a journal to a terminal record) with an exhaustive switch.
 */
export const RUN_STATUSES = ['completed', 'suspended', 'aborted', 'budget', 'max_iterations', 'error', 'crashed'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** The phases a status event reports. A question to the operator is its own event, not a phase. */
export const RUN_PHASES = ['model_call', 'tools', 'finished'] as const;
export type RunPhase = (typeof RUN_PHASES)[number];
