import type { BackfillDescriptor } from '../declare/backfill-definition';
import {
  BackfillAppliedError,
  BackfillEnvironmentError,
  BackfillMigrationPendingError,
  BackfillPendingError,
  BackfillRunningError,
  BackfillUnknownError,
} from '../errors/backfill-errors';
import type { BackfillLedger, BackfillPassRow } from './ledger';
import { newestFirst } from './ledger-order';
import { registeredBackfills } from './registry';

/**
 * Where one declared backfill stands in one environment: `pending` (no pass), `failed` (the newest pass failed),
 * `running`, `completed`, or `excluded` (its `environments` leave this one out).
 */
export type BackfillState = 'pending' | 'failed' | 'running' | 'completed' | 'excluded';

/** The states a deploy check is red on: declared and not swept. A running pass is not (it would mute the check). */
export const UNSWEPT_STATES: readonly BackfillState[] = ['pending', 'failed'];

/** One declaration beside its newest pass. */
export interface PendingBackfillRow {
  /** The backfill's durable name. */
  readonly name: string;
  /** Where it stands in this environment. */
  readonly state: BackfillState;
  /** The declaration's checksum in this build (see `backfillChecksum`). */
  readonly checksum: string;
  /** The newest completed pass ran under another checksum (a warning: function text moves under a bundler). */
  readonly checksumMoved: boolean;
  /** The migration that must be applied first, or null. */
  readonly requires: string | null;
  /** The environments it belongs to; null: every one. */
  readonly environments: readonly string[] | null;
  /** The newest pass of the name, or null. */
  readonly lastRun: BackfillPassRow | null;
}

/** Declared against swept, for one environment. */
export interface PendingBackfillsReport {
  /** The environment the report was made for. */
  readonly environment: string;
  /** One row per declaration, in declaration order. */
  readonly rows: readonly PendingBackfillRow[];
  /** Names declared and not swept (`pending` or `failed`): non-empty is the alarm. */
  readonly pending: readonly string[];
  /** Names the ledger holds passes of that no declaration carries any more. */
  readonly orphaned: readonly string[];
}

/** What {@link pendingBackfills} compares. */
export interface PendingBackfillsInput {
  /** Default: `registeredBackfills()`. */
  readonly declarations?: readonly BackfillDescriptor[];
  /** Ledger rows, any order: at least the newest pass and the newest completed pass of each name. */
  readonly runs: readonly BackfillPassRow[];
  /** The environment to report for: a declaration whose `environments` leave it out is `excluded`. */
  readonly environment: string;
}

/** The diff between what is declared and what the ledger says ran: a sweep merged and never enqueued shows here. */
export function pendingBackfills(input: PendingBackfillsInput): PendingBackfillsReport {
  const declarations = input.declarations ?? registeredBackfills();
  const runs = [...input.runs].sort(newestFirst);
  const rows = declarations.map((d): PendingBackfillRow => {
    const lastRun = runs.find((r) => r.name === d.name) ?? null;
    const completed = runs.find((r) => r.name === d.name && r.status === 'completed');
    const excluded = d.environments !== null && !d.environments.includes(input.environment);
    return {
      name: d.name,
      state: excluded ? 'excluded' : (lastRun?.status ?? 'pending'),
      checksum: d.checksum,
      checksumMoved: completed !== undefined && completed.checksum !== d.checksum,
      requires: d.requires,
      environments: d.environments,
      lastRun,
    };
  });
  const declared = new Set(declarations.map((d) => d.name));
  return {
    environment: input.environment,
    rows,
    pending: rows.filter((r) => UNSWEPT_STATES.includes(r.state)).map((r) => r.name),
    orphaned: [...new Set(runs.map((r) => r.name).filter((n) => !declared.has(n)))].sort(),
  };
}

/** Reads, for each declaration, its newest pass and its newest completed pass: the runs {@link pendingBackfills} needs. */
export async function ledgerRunsOf(
  ledger: BackfillLedger,
  declarations: readonly BackfillDescriptor[] = registeredBackfills(),
): Promise<BackfillPassRow[]> {
  const runs: BackfillPassRow[] = [];
  for (const d of declarations) {
    runs.push(...(await ledger.list({ name: d.name, limit: 1 })));
    runs.push(...(await ledger.list({ name: d.name, status: 'completed', limit: 1 })));
  }
  return runs;
}

/** Throws `X_BACKFILL_PENDING` naming every unswept backfill of a report; what `x db backfill --pending` exits on. */
export function assertNothingPending(report: PendingBackfillsReport): void {
  if (report.pending.length > 0) throw new BackfillPendingError(report.pending);
}

/** What {@link gateBackfill} checks one name against. */
export interface GateBackfillInput {
  /** The backfill to enqueue: it must be declared (else `X_BACKFILL_UNKNOWN`). */
  readonly name: string;
  /** The environment this process serves: the declaration's `environments` must include it (`X_BACKFILL_ENVIRONMENT`). */
  readonly environment: string;
  /** Ledger rows of the name (see {@link ledgerRunsOf}). */
  readonly runs: readonly BackfillPassRow[];
  /** Applied migrations (names or timestamps, see `readAppliedMigrations`): `requires` must be among them. */
  readonly appliedMigrations: readonly string[];
  /** Sweep a completed name again, into a new row. */
  readonly force?: boolean;
  /** Default: `registeredBackfills()`. */
  readonly declarations?: readonly BackfillDescriptor[];
}

/**
 * The pre-check before a backfill is enqueued by a command: a declared name (`X_BACKFILL_UNKNOWN`), this environment
 * (`X_BACKFILL_ENVIRONMENT`), its migration applied (`X_BACKFILL_MIGRATION_PENDING`), no pass in flight
 * (`X_BACKFILL_RUNNING`), and — without `force` — no completed pass (`X_BACKFILL_APPLIED`). Answers the declaration.
 */
export function gateBackfill(input: GateBackfillInput): BackfillDescriptor {
  const declarations = input.declarations ?? registeredBackfills();
  const found = declarations.find((d) => d.name === input.name);
  if (found === undefined) {
    throw new BackfillUnknownError(
      input.name,
      declarations.map((d) => d.name),
    );
  }
  if (found.environments !== null && !found.environments.includes(input.environment)) {
    throw new BackfillEnvironmentError(found.name, input.environment, found.environments);
  }
  if (found.requires !== null && !input.appliedMigrations.includes(found.requires)) {
    throw new BackfillMigrationPendingError(found.name, found.requires);
  }
  const runs = input.runs.filter((r) => r.name === found.name).sort(newestFirst);
  const running = runs.find((r) => r.status === 'running');
  if (running !== undefined) throw new BackfillRunningError(found.name, running.runId);
  const completed = runs.find((r) => r.status === 'completed');
  if (completed !== undefined && input.force !== true) {
    throw new BackfillAppliedError(found.name, completed.runId);
  }
  return found;
}
