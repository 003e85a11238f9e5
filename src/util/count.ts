/** A count with its noun, singular for one: `1 file`, `3 files`. The plural is the noun plus `s` unless given. */
export function counted(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}
