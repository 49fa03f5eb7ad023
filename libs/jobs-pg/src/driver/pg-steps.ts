import type { ClaimRef, JsonValue, StepRecord, StepStore } from '@ultimat3/jobs';
import { iso, isUuid, type PgContext } from './pg-context';
import { toMs, type PgTime } from './pg-rows';

interface StepRow {
  readonly name: string;
  readonly output: JsonValue;
  readonly no_output: boolean;
  readonly attempt: number;
  readonly started_at: PgTime;
  readonly completed_at: PgTime;
}

/**
 * Durable steps in `x_job_steps`. `save` is fenced like a settle; a name saved again keeps its first output and
 * answers true (see `SQL_STEPS_SAVE`). A step that returned nothing is stored as SQL null and loads back with no
 * `output`; a step that returned `null` loads back `null`.
 */
export function pgSteps(ctx: PgContext): StepStore {
  return {
    async load(jobId: string): Promise<readonly StepRecord[]> {
      if (!isUuid(jobId)) return [];
      const { rows } = await ctx.executor.query<StepRow>(ctx.sql.stepsLoad, [jobId]);
      return rows.map((row) => {
        const base = {
          name: row.name,
          attempt: row.attempt,
          startedAt: toMs(row.started_at),
          completedAt: toMs(row.completed_at),
        };
        return row.no_output ? base : { ...base, output: row.output };
      });
    },

    async save(jobId: string, claim: ClaimRef, step: StepRecord): Promise<boolean> {
      if (!isUuid(jobId) || !isUuid(claim.claim)) return false;
      const { rows } = await ctx.executor.query<{ held: number }>(ctx.sql.stepsSave, [
        jobId,
        claim.workerId,
        claim.claim,
        step.name,
        // the exact text: the json column keeps it verbatim, and JSON.parse gives the same value back
        step.output === undefined ? null : JSON.stringify(step.output),
        step.attempt,
        iso(step.startedAt),
        iso(step.completedAt),
      ]);
      return rows[0]?.held === 1;
    },
  };
}
