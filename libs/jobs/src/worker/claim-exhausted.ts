import type { JobRow } from '../driver/job-row';
import type { JobRegistry } from '../registry/job-registry';
import type { JobMetrics } from '../runtime/metrics';
import { notifyOnSettled } from '../runtime/on-settled';
import type { JobsLogger } from '../util/logger';

/** The error a claim records on a row whose lease lapsed on its final attempt. */
export const LEASE_LAPSED_FINAL_ATTEMPT = 'LEASE_LAPSED_FINAL_ATTEMPT';

/**
 * What a worker does with the rows a rescue buried because their lease lapsed on the final attempt (every worker that
 * took them died) — a rescue's `RescueResult.buried`, as its rescuing claim answered it (`claimAndRescue`):
 * `jobs.claim.exhausted` at error, the counter, and the job's onSettled — once per row.
 */
export async function announceExhausted(
  rows: readonly JobRow[],
  registry: JobRegistry,
  logger: JobsLogger,
  metrics: JobMetrics | undefined,
): Promise<void> {
  for (const row of rows) {
    const dropped = row.state === 'failed';
    const outcome = dropped ? 'dropped' : 'dead-lettered';
    logger.log('error', 'jobs.claim.exhausted', {
      job: row.name,
      jobId: row.id,
      queue: row.queue,
      attempt: row.attempt,
      outcome,
    });
    metrics?.jobsTotal(row.queue, dropped ? 'failed' : 'dead');
    const job = registry.get(row.name);
    if (job === undefined) continue;
    const parsed = await job.handle.parseInput(row.input);
    let orgId: string | null = null;
    try {
      orgId = parsed.ok ? job.handle.tenantOf(parsed.value) : row.tenantId;
    } catch {
      orgId = row.tenantId;
    }
    // the attempt is over: nothing will stop the hook
    const never = new AbortController().signal;
    const ctx = {
      jobId: row.id,
      runId: row.runId,
      name: row.name,
      attempt: row.attempt,
      actor: { id: row.enqueuedBy, orgId },
      signal: never,
      hardSignal: never,
    };
    await notifyOnSettled(
      job.handle,
      {
        outcome,
        jobId: row.id,
        runId: row.runId,
        input: parsed.ok ? parsed.value : undefined,
        error: LEASE_LAPSED_FINAL_ATTEMPT,
        code: undefined,
        ctx,
      },
      ctx,
      logger,
    );
  }
}

/** {@link announceExhausted} in the background: a failure to announce is logged, never thrown. */
export function announceExhaustedInBackground(
  rows: readonly JobRow[],
  registry: JobRegistry,
  logger: JobsLogger,
  metrics: JobMetrics | undefined,
): void {
  if (rows.length === 0) return;
  announceExhausted(rows, registry, logger, metrics).catch((error: unknown) =>
    logger.log('error', 'jobs.claim.exhausted-announce-failed', { error: String(error) }),
  );
}
