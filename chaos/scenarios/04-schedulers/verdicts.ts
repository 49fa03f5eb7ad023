import type { JobDriver, JobRow } from '@ultimat3/jobs';
import { jobCursor, MAX_JOB_PAGE } from '@ultimat3/jobs';
import { expectedOccurrences } from './cron-oracle';
import { fireJobName } from './episodes';
import { judgeTask, type ObservedFire, type TaskVerdict } from './judge';
import type { EpisodeRun } from './run-episode';

/** The input every fire's row carries (see `episode-scheduler.ts`). */
interface FireInput {
  readonly task: string;
  readonly occurrenceMs: number;
  readonly holder: string;
}

/** Every row an episode's fires enqueued, read through the driver's operator surface (pg and Redis alike). */
export async function episodeRows(driver: JobDriver, episode: number): Promise<JobRow[]> {
  const introspect = driver.introspect;
  if (introspect === undefined) throw new Error('scenario 4 reads fires through driver.introspect');
  const rows: JobRow[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await introspect.list({
      name: fireJobName(episode),
      limit: MAX_JOB_PAGE,
      ...(after === undefined ? {} : { after }),
    });
    rows.push(...page);
    if (page.length < MAX_JOB_PAGE) return rows;
    after = jobCursor(page[page.length - 1] as JobRow);
  }
}

/** An episode's verdict: per task, and summed. */
export interface EpisodeVerdict {
  readonly perTask: ReadonlyMap<string, TaskVerdict>;
  readonly total: TaskVerdict;
  /** Rows read: every fire. */
  readonly fires: number;
}

/**
 * Judges an episode's rows: per task, the fires (occurrence and planning instant from each row) against the oracle's
 * occurrences after the task's arming, up to well past the run's last fire.
 */
export function judgeEpisode(run: EpisodeRun, rows: readonly JobRow[]): EpisodeVerdict {
  const byTask = new Map<string, ObservedFire[]>();
  for (const row of rows) {
    const input = row.input as unknown as FireInput;
    const list = byTask.get(input.task) ?? [];
    list.push({ occurrenceMs: input.occurrenceMs, plannedAtMs: row.runAt });
    byTask.set(input.task, list);
  }
  const lastFire = Math.max(run.episode.endMs, ...rows.map((r) => r.runAt));
  const perTask = new Map<string, TaskVerdict>();
  for (const spec of run.episode.tasks) {
    const armedAtMs = run.armedAt.get(spec.name) as number;
    perTask.set(
      spec.name,
      judgeTask({
        policy: spec.catchUp,
        armedAtMs,
        // an hour past the latest planning instant: every occurrence any fire could have named is listed
        expected: expectedOccurrences(spec.cron, spec.tz, armedAtMs, lastFire + 3_600_000),
        fires: byTask.get(spec.name) ?? [],
        judgeEndMs: run.judgeEndMs,
      }),
    );
  }
  const names = new Set(run.episode.tasks.map((t) => t.name));
  const strays = rows.filter((r) => !names.has((r.input as unknown as FireInput).task)).length;
  const total = [...perTask.values()].reduce<TaskVerdict>(
    (sum, v) => ({
      doubles: sum.doubles + v.doubles,
      unexpected: sum.unexpected + v.unexpected,
      skippedBeyondPolicy: sum.skippedBeyondPolicy + v.skippedBeyondPolicy,
      skippedByPolicy: sum.skippedByPolicy + v.skippedByPolicy,
      fired: sum.fired + v.fired,
      expected: sum.expected + v.expected,
    }),
    {
      doubles: 0,
      unexpected: strays,
      skippedBeyondPolicy: 0,
      skippedByPolicy: 0,
      fired: 0,
      expected: 0,
    },
  );
  return { perTask, total, fires: rows.length };
}
