import Database from 'better-sqlite3';
import { statSync } from 'node:fs';
import * as sqliteVec from 'sqlite-vec';
import type { EmbeddingsClient } from './embeddings.js';
import { identityDifference, readIdentity } from './identity.js';
import type { VectorSettings } from './identity.js';
import { COMPLETE_HINT, readGap } from './fulltext.js';
import { isKnowledgeError } from './errors.js';
import { FORMAT_VERSION, formatVersion } from './schema.js';
import type { CheckState } from './maintenance.js';
import type { KnowledgeReader } from './store.js';
import { counted } from '../util/count.js';

/** One row of the doctor's report. */
export interface DoctorCheck {
  readonly name: string;
  readonly state: CheckState;
  readonly detail: string;
  /** A failed fatal check makes the store unusable, and the command exits non-zero. */
  readonly fatal: boolean;
}

/** The doctor's findings, in check order. */
export interface DoctorReport {
  readonly checks: readonly DoctorCheck[];
  /** False when a fatal check failed. */
  readonly healthy: boolean;
}

function scratchChecks(): DoctorCheck[] {
  const out: DoctorCheck[] = [];
  const db = new Database(':memory:');
  try {
    const fts = (db.prepare(`SELECT sqlite_compileoption_used('ENABLE_FTS5') AS f`).get() as { f: number }).f === 1;
    out.push({ name: 'fts5', state: fts ? 'ok' : 'fail', detail: fts ? 'SQLite has FTS5' : 'this SQLite build has no FTS5', fatal: true });
    try {
      sqliteVec.load(db);
      const v = (db.prepare('SELECT vec_version() AS v').get() as { v: string }).v;
      out.push({ name: 'sqlite-vec', state: 'ok', detail: `loaded ${v}`, fatal: false });
    } catch (err) {
      out.push({ name: 'sqlite-vec', state: 'fail', detail: (err as Error).message, fatal: false });
    }
  } finally {
    db.close();
  }
  return out;
}

/**
 * Checks a store and, with a vector tier configured, probes the live embeddings model (its
 * dimension and whether it normalizes) and compares it with the pinned identity. A check that
 * could not run is reported as `not_run`, never as passing.
 */
export async function runDoctor(
  reader: KnowledgeReader,
  vector: { client: EmbeddingsClient; settings: VectorSettings } | undefined,
  signal: AbortSignal,
): Promise<DoctorReport> {
  const checks = scratchChecks();
  let statOk = true;
  try {
    statSync(reader.path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') {
      statOk = false;
      checks.push({ name: 'store', state: 'fail', detail: `cannot stat ${reader.path}: ${(err as Error).message}`, fatal: true });
    }
  }
  let pinned: ReturnType<typeof readIdentity> | undefined;
  let built = false;
  if (statOk) {
    try {
      const db = reader.handle();
      if (db === undefined) {
        checks.push({ name: 'store', state: 'not_run', detail: `${reader.path} not built; run: fisk knowledge index`, fatal: false });
      } else {
        built = true;
        pinned = readIdentity(db);
        const docs = (db.prepare('SELECT count(*) AS n FROM documents').get() as { n: number }).n;
        checks.push({ name: 'store', state: 'ok', detail: `${reader.path} (${counted(docs, 'document')})`, fatal: false });
        const version = formatVersion(db);
        checks.push({
          name: 'format',
          state: 'ok',
          detail:
            version !== undefined && version < FORMAT_VERSION
              ? `format version ${version}, read and updated as it is; its searches read every candidate's row, and 'fisk knowledge reset --force' then 'fisk knowledge index' rebuild it in format ${FORMAT_VERSION}, which does not (embeddings are made again)`
              : 'format version and shape match this build',
          fatal: true,
        });
        checks.push(
          readGap(db) === undefined
            ? { name: 'full-text', state: 'ok', detail: 'both full-text tables hold every chunk', fatal: false }
            : {
                name: 'full-text',
                state: 'fail',
                detail: `incomplete: a first build was interrupted before it filled the full-text tables, so search misses words; ${COMPLETE_HINT}`,
                fatal: false,
              },
        );
      }
    } catch (err) {
      checks.push({ name: 'format', state: 'fail', detail: isKnowledgeError(err) ? err.message : String(err), fatal: true });
    }
  }
  if (vector === undefined) {
    checks.push({
      name: 'embeddings',
      state: 'not_run',
      detail: 'no harness.knowledge.embeddings block: lexical search only',
      fatal: false,
    });
    checks.push({
      name: 'vector identity',
      state: pinned === undefined ? 'not_run' : 'fail',
      detail:
        pinned === undefined
          ? 'lexical-only configuration'
          : `the index holds vectors from ${pinned.model} but no embeddings are configured`,
      fatal: false,
    });
  } else {
    let probe: { dimension: number; normalized: boolean } | undefined;
    try {
      probe = await vector.client.probe(signal);
      checks.push({
        name: 'embeddings',
        state: 'ok',
        detail: `model=${vector.settings.model} dimension=${probe.dimension} normalized=${probe.normalized}`,
        fatal: false,
      });
    } catch (err) {
      checks.push({ name: 'embeddings', state: 'fail', detail: (err as Error).message, fatal: false });
    }
    if (!built || probe === undefined) {
      checks.push({
        name: 'vector identity',
        state: 'not_run',
        detail: !built ? 'no index to compare with' : 'the model could not be probed',
        fatal: false,
      });
    } else if (pinned === undefined) {
      checks.push({
        name: 'vector identity',
        state: 'fail',
        detail: "the index has no vectors; run 'fisk knowledge index --reindex'",
        fatal: false,
      });
    } else {
      const diff =
        identityDifference(pinned, vector.settings) ??
        (pinned.dimension !== probe.dimension ? `dimension ${pinned.dimension} (the model answers ${probe.dimension})` : undefined) ??
        (pinned.normalized !== probe.normalized ? 'normalization' : undefined);
      checks.push(
        diff === undefined
          ? {
              name: 'vector identity',
              state: 'ok',
              detail: `pinned model=${pinned.model} dimension=${pinned.dimension} matches`,
              fatal: false,
            }
          : {
              name: 'vector identity',
              state: 'fail',
              detail: `the index was embedded with a different ${diff}; run 'fisk knowledge index --reindex'`,
              fatal: false,
            },
      );
    }
  }
  return { checks, healthy: !checks.some((c) => c.fatal && c.state === 'fail') };
}
