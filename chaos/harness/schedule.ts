/**
 * Seeded randomness for the chaos tier: one seed per `jest` run (`CHAOS_SEED`, else a random one), printed, so a red
 * run replays with `CHAOS_SEED=<seed>`; each scenario run derives its own stream from it and its label, so the pg and
 * redis runs differ yet both replay.
 */

/** A stream of random numbers from one seed. */
export interface ChaosRandom {
  /** A number in [0, 1). */
  next(): number;
  /** A whole number in [0, n). */
  int(n: number): number;
  /** A number in [min, max). */
  between(min: number, max: number): number;
  /** One element of `items` (not empty). */
  pick<T>(items: readonly T[]): T;
}

/** `CHAOS_SEED` when set (a whole number), else a fresh random 32-bit seed. */
export function chaosSeed(env: NodeJS.ProcessEnv = process.env): number {
  const given = env.CHAOS_SEED;
  if (given !== undefined && given !== '') {
    const seed = Number(given);
    if (!Number.isSafeInteger(seed))
      throw new Error(`CHAOS_SEED must be a whole number (got ${given})`);
    return seed >>> 0;
  }
  return Math.floor(Math.random() * 2 ** 32) >>> 0;
}

/** The seed of one run, derived from the tier's `seed` and the run's `label` (e.g. `01 worker kills/pg`). */
export function seedFor(seed: number, label: string): number {
  let h = (seed ^ 0x9e3779b9) >>> 0;
  for (let i = 0; i < label.length; i++) h = Math.imul(h ^ label.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** A deterministic stream (mulberry32) from `seed`. */
export function chaosRandom(seed: number): ChaosRandom {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  return {
    next,
    int: (n) => Math.floor(next() * n),
    between: (min, max) => min + next() * (max - min),
    pick: (items) => {
      if (items.length === 0) throw new Error('chaosRandom.pick: nothing to pick from');
      return items[Math.floor(next() * items.length)]!;
    },
  };
}

/** One fault of a schedule: when (a point on the scenario's own axis, e.g. the share of jobs done) and on what. */
export interface ScheduledFault<T> {
  /** The point in [from, to) it fires at, in increasing order over the schedule. */
  readonly at: number;
  readonly target: T;
}

/** Options of {@link faultSchedule}. */
export interface FaultScheduleOptions<T> {
  readonly random: ChaosRandom;
  /** How many faults. */
  readonly count: number;
  /** The axis' span: e.g. 0.02 to 0.9 of the jobs done, or 0 to 20,000 ms. */
  readonly from: number;
  readonly to: number;
  /** What each fault may hit (picked uniformly). */
  readonly targets: readonly T[];
}

/** `count` faults at uniformly random points of [from, to), in order, each on a random target. */
export function faultSchedule<T>(options: FaultScheduleOptions<T>): ScheduledFault<T>[] {
  const { random, count, from, to, targets } = options;
  const points = Array.from({ length: count }, () => random.between(from, to)).sort(
    (a, b) => a - b,
  );
  return points.map((at) => ({ at, target: random.pick(targets) }));
}

/** Prints the seed of a scenario's run, with how to replay it. */
export function announceSeed(scenario: string, seed: number): void {
  process.stdout.write(`chaos ${scenario}: CHAOS_SEED=${seed} (set it to replay this run)\n`);
}
