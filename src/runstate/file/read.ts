import { checkAppend } from '../check-append.js';
import { RunStateError } from '../errors.js';
import type { StoredRecord } from '../records.js';
import { decodeRecord } from '../validate.js';

/** The records of a journal file, and how many bytes of it are whole records. */
export interface ParsedJournal {
  readonly records: readonly StoredRecord[];
  /** Length of the valid prefix: everything after it is a torn tail to drop. */
  readonly validBytes: number;
  /** Whether the last whole record lacks its newline (a write torn after the JSON). */
  readonly missingNewline: boolean;
}

/**
 * Splits a JSON-lines journal. A final line that is not valid JSON is a torn write and dropped;
 * an interior one is corruption, which can be told apart only because every record is appended
 * and synced before the next is written. A final line that is valid JSON but breaks its schema is
 * corruption too: a torn write cannot produce it.
 */
export function parseJournal(text: string, file: string): ParsedJournal {
  const records: StoredRecord[] = [];
  let offset = 0;
  let lineNo = 0;
  while (offset < text.length) {
    const nl = text.indexOf('\n', offset);
    const end = nl === -1 ? text.length : nl;
    const line = text.slice(offset, end);
    lineNo++;
    const isLast = nl === -1 || nl === text.length - 1;
    if (line.trim() !== '') {
      let record: StoredRecord;
      try {
        record = decodeRecord(line);
      } catch (err) {
        const torn = isLast && err instanceof RunStateError && err.code === 'corrupt';
        if (torn) return { records, validBytes: Buffer.byteLength(text.slice(0, offset)), missingNewline: false };
        if (err instanceof RunStateError && err.code === 'version') throw err;
        throw new RunStateError('corrupt', `corrupt record sequence: ${file} line ${lineNo}: ${(err as Error).message}`, { cause: err });
      }
      // the append rule, applied on read: a record follows only the one before it, never skipping ahead
      const prev = records[records.length - 1];
      if (prev !== undefined && checkAppend(record.seq, prev.seq) !== 'next') {
        const why = record.seq > prev.seq ? ' (a gap: records are missing)' : '';
        throw new RunStateError(
          'corrupt',
          `corrupt record sequence: ${file} line ${lineNo}: seq ${record.seq} does not follow seq ${prev.seq}${why}`,
        );
      }
      records.push(record);
    }
    if (nl === -1) return { records, validBytes: Buffer.byteLength(text), missingNewline: line.trim() !== '' };
    offset = nl + 1;
  }
  return { records, validBytes: Buffer.byteLength(text), missingNewline: false };
}
