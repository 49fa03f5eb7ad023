/**
 * The chaos tier runs every scenario at one of two sizes: `ci` (the scaled-down pass `npm test` and `.ci/run` include)
 * and `full` (`npm run test:chaos`, which sets `CHAOS_SIZE=full`).
 */
export type ChaosSize = 'ci' | 'full';

/** The size this run was asked for: `full` when `CHAOS_SIZE=full`, else `ci`. */
export function chaosSize(env: NodeJS.ProcessEnv = process.env): ChaosSize {
  return env.CHAOS_SIZE === 'full' ? 'full' : 'ci';
}

/** Picks the figure for this run's size, e.g. `sized({ full: 100_000, ci: 10_000 })`. */
export function sized<T>(
  sizes: Readonly<Record<ChaosSize, T>>,
  env: NodeJS.ProcessEnv = process.env,
): T {
  return sizes[chaosSize(env)];
}
