import type { BackfillDescriptor } from '../declare/backfill-definition';
import type { BackfillLedger } from './ledger';
import { ledgerRunsOf, pendingBackfills } from './pending';

/** The backfills part of a readiness report: informational, never down — an unswept backfill is not an outage. */
export type BackfillsHealth = {
  readonly status: 'up';
  readonly environment: string;
  /** Declared and not swept (`pending` or `failed`): the alarm a deploy check reads. */
  readonly pending: readonly string[];
  /** Passes in flight. */
  readonly running: readonly string[];
};

/**
 * What a health indicator shows of the backfills this process serves: the ones declared and not swept, and the ones
 * in flight, read from the backend's ledger. Undefined when there is no ledger or nothing declared.
 */
export async function backfillsHealth(
  ledger: BackfillLedger | undefined,
  declarations: readonly BackfillDescriptor[],
  environment: string,
): Promise<BackfillsHealth | undefined> {
  if (ledger === undefined || declarations.length === 0) return undefined;
  const report = pendingBackfills({
    declarations,
    runs: await ledgerRunsOf(ledger, declarations),
    environment,
  });
  return {
    status: 'up',
    environment,
    pending: report.pending,
    running: report.rows.filter((r) => r.state === 'running').map((r) => r.name),
  };
}
