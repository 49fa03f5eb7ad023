/**
 * The verdict scenarios of step jobs through worker SIGKILLs share (1 worker kills, 9 hand-off kills): once every job
 * has settled, the driver's final state is recorded into the ground truth and the four invariants are counted — lost,
 * completed twice, step bodies re-run after their step was stored, stale writes accepted — with the figures the
 * report prints beside them. A re-run step is explained on stdout (its first jobs), since the assertion alone says
 * only how many.
 */
import type { Pool } from 'pg';
import type { ChaosRun } from './drivers';
import {
  countFigures,
  countViolations,
  explainRerunSteps,
  recordFinalState,
  type TruthFigures,
} from './truth-checks';

/** What a step-jobs run under kills came to. */
export interface KillsVerdict {
  /** Each invariant's count of violations: every one must be 0. */
  readonly invariants: {
    readonly lost: number;
    readonly completedTwice: number;
    readonly stepBodiesRerunAfterStored: number;
    readonly staleWritesAccepted: number;
  };
  readonly figures: TruthFigures;
  /** The driver's done counter for `job`, over every bucket. */
  readonly doneCounted: number;
}

/** Options of {@link killsVerdict}. */
export interface KillsVerdictOptions {
  /** The spec's database, holding the ground truth. */
  readonly pool: Pool;
  readonly run: ChaosRun;
  /** Every job id the run enqueued. */
  readonly ids: readonly string[];
  /** The job's name and its steps, in order. */
  readonly job: string;
  readonly steps: readonly string[];
}

/** Records `run`'s final state and counts its invariants (see the file's comment). Call it once every job settled. */
export async function killsVerdict(options: KillsVerdictOptions): Promise<KillsVerdict> {
  const { pool, run, ids, job, steps } = options;
  await recordFinalState(pool, run.id, run.driver, ids, { schema: run.target.schema });
  const violations = await countViolations(pool, run.id, steps);
  const figures = await countFigures(pool, run.id);
  const counted = await run.driver.introspect?.counters({ job });
  const doneCounted = (counted ?? []).reduce((n, b) => n + b.done, 0);
  const invariants = {
    lost: violations.notDone + violations.stepsLost,
    completedTwice: violations.completedTwice + Math.max(0, doneCounted - ids.length),
    stepBodiesRerunAfterStored: violations.stepsRerunAfterStored,
    staleWritesAccepted: violations.staleWritesAccepted,
  };
  if (invariants.stepBodiesRerunAfterStored > 0) {
    process.stdout.write(
      `re-run steps, first jobs:\n${(await explainRerunSteps(pool, run.id)).join('\n')}\n`,
    );
  }
  return { invariants, figures, doneCounted };
}
