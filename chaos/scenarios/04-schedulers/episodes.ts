import type { CatchUpPolicy } from '@ultimat3/jobs';
import { instantOfWallTime } from './cron-oracle';

/** The two zones every episode runs tasks in. */
export const ZONES = ['Europe/Berlin', 'America/New_York'] as const;

/**
 * The expressions of each zone: every minute; hourly at minutes that fall inside a spring-forward gap and inside a
 * fall-back's repeated hour (02:15/02:45 Berlin and New York in March, 02:15/02:45 Berlin and 01:15/01:45 New York in
 * the autumn); daily at 02:30 local, a time that does not exist on the spring day and exists twice in Berlin's autumn.
 */
export const CRONS = {
  minute: '* * * * *',
  hourly: '15,45 * * * *',
  daily: '30 2 * * *',
} as const;

/** Each catch-up policy the scheduler supports. */
export const POLICIES: readonly CatchUpPolicy[] = ['skip', 'run-once', 'run-all'];

/** Occurrences a `run-all` task walks per round (the default is 10). */
const RUN_ALL_WALK = 60;

/** One task a scheduler process declares for an episode: plain JSON, sent by the spec. */
export interface TaskSpec {
  readonly name: string;
  readonly cron: string;
  readonly tz: string;
  readonly catchUp: CatchUpPolicy;
  /** `run-all` only: occurrences walked per round. */
  readonly maxCatchUp?: number;
}

/** One driven stretch of time around one switch of one zone. */
export interface Episode {
  readonly index: number;
  /** E.g. `America/New_York 2026-11-01 (fall back)`. */
  readonly label: string;
  readonly startMs: number;
  readonly endMs: number;
  readonly tasks: readonly TaskSpec[];
}

/** The four 2026 switch days: both zones, spring forward and fall back. */
const SWITCHES = [
  { tz: 'America/New_York', day: '2026-03-08', kind: 'spring forward' },
  { tz: 'Europe/Berlin', day: '2026-03-29', kind: 'spring forward' },
  { tz: 'Europe/Berlin', day: '2026-10-25', kind: 'fall back' },
  { tz: 'America/New_York', day: '2026-11-01', kind: 'fall back' },
] as const;

/** The job name one episode's fires enqueue (so each episode's rows are read apart). */
export function fireJobName(episode: number): string {
  return `s4.e${episode}.fire`;
}

/** The episode's tasks: every zone × expression × policy (18), named so a row says which. */
export function episodeTasks(episode: number): TaskSpec[] {
  const tasks: TaskSpec[] = [];
  for (const tz of ZONES) {
    for (const [kind, cron] of Object.entries(CRONS)) {
      for (const catchUp of POLICIES) {
        tasks.push({
          name: `s4.e${episode}.${tz.split('/')[1]}.${kind}.${catchUp}`,
          cron,
          tz,
          catchUp,
          // a long walk per round: after an outage the leader spends its statements on the backlog
          ...(catchUp === 'run-all' ? { maxCatchUp: RUN_ALL_WALK } : {}),
        });
      }
    }
  }
  return tasks;
}

/** An episode's stretch: wall-clock hours from the switch day's local midnight (-2 is 22:00 the day before). */
export interface EpisodeWindow {
  readonly fromHour: number;
  readonly toHour: number;
}

/**
 * The episodes: per switch, the switch zone's local night over `window` (e.g. 00:30 to 04:00 — the gap or the
 * repeated hour and 02:30 inside), with every task of both zones running.
 */
export function episodes(window: EpisodeWindow): Episode[] {
  const wall = (day: string, hour: number): number =>
    Date.parse(`${day}T00:00:00Z`) + hour * 3_600_000;
  return SWITCHES.map((s, index) => ({
    index,
    label: `${s.tz} ${s.day} (${s.kind})`,
    startMs: instantOfWallTime(s.tz, wall(s.day, window.fromHour)),
    endMs: instantOfWallTime(s.tz, wall(s.day, window.toHour)),
    tasks: episodeTasks(index),
  }));
}
