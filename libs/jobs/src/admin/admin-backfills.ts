import { defaultBackfillEnvironment } from '../backfill/backfill-runtime';
import { inspectBackfills, type BackfillPassView } from '../backfill/inspect';
import type { BackfillLedger, BackfillLedgerFilter } from '../backfill/ledger';
import { ledgerRunsOf, pendingBackfills, type BackfillState } from '../backfill/pending';
import { backfillOf } from '../backfill/registry';
import { describeBackfill } from '../backfill/resolved';
import type { JobRegistry } from '../registry/job-registry';

/** One backfill this app declares, beside its newest pass: a sweep merged and never run shows `pending`. */
export interface AdminDeclaredBackfillView {
  /** The backfill's name. */
  readonly name: string;
  /** Where the sweep stands for this environment (`pending`, `failed`, `running`, `completed`, `excluded`). */
  readonly state: BackfillState;
  /** The newest completed pass ran under another checksum. */
  readonly checksumMoved: boolean;
  /** The environments it belongs to; null: every one. */
  readonly environments: readonly string[] | null;
  /** The id of its newest pass's ledger row, or null. */
  readonly lastRunId: string | null;
}

/** The backfill ledger as the page reads it: the declared sweeps against the ledger, and the passes newest first. */
export interface AdminBackfillsView {
  /** Whether the backend keeps a ledger (false: everything below is empty). */
  readonly available: boolean;
  /** The environment the declared sweeps are judged for (`JOBS_ENVIRONMENT`, else `NODE_ENV`). */
  readonly environment: string;
  /** Every declared backfill beside its newest pass. */
  readonly declared: readonly AdminDeclaredBackfillView[];
  /** Declared and not swept (`pending` or `failed`). */
  readonly pending: readonly string[];
  /** The ledger's passes, newest first. */
  readonly passes: readonly BackfillPassView[];
}

/**
 * The ledger projection (`inspectBackfills`) and the declared-against-swept diff (`pendingBackfills`) for the
 * backfills this app's registry carries — what `x db backfill --list` and `--pending` print.
 */
export async function adminBackfills(
  ledger: BackfillLedger | undefined,
  registry: JobRegistry,
  filter: BackfillLedgerFilter,
): Promise<AdminBackfillsView> {
  const environment = defaultBackfillEnvironment();
  if (ledger === undefined) {
    return { available: false, environment, declared: [], pending: [], passes: [] };
  }
  const declarations = registry.all().flatMap(({ handle }) => {
    const declared = backfillOf(handle);
    return declared === undefined ? [] : [describeBackfill(declared)];
  });
  const [runs, passes] = await Promise.all([
    ledgerRunsOf(ledger, declarations),
    inspectBackfills(ledger, filter),
  ]);
  const report = pendingBackfills({ declarations, runs, environment });
  return {
    available: true,
    environment,
    declared: report.rows.map((r) => ({
      name: r.name,
      state: r.state,
      checksumMoved: r.checksumMoved,
      environments: r.environments,
      lastRunId: r.lastRun?.id ?? null,
    })),
    pending: report.pending,
    passes,
  };
}
