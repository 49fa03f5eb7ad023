/**
 * A racer's connections to the jobs backend: several ways to the server, so the concurrent enqueues of one process
 * really race there instead of queueing on one socket.
 */
import type { JobDriver } from '@ultimat3/jobs';
import { openChaosDriver, type ChaosTarget } from '../../harness/drivers';

/** The drivers a racer enqueues through, and their close. */
export interface RaceDrivers {
  readonly drivers: readonly JobDriver[];
  close(): Promise<void>;
}

/**
 * `connections` ways to `target`: on PostgreSQL one driver over a pool of that many connections, all opened now (each
 * concurrent statement takes its own, and the first race does not race connection setup instead); on Redis that many
 * drivers, each with a client of its own.
 */
export async function openRaceDrivers(
  target: ChaosTarget,
  connections: number,
): Promise<RaceDrivers> {
  const opened =
    target.driver === 'pg'
      ? [openChaosDriver(target, { poolSize: connections })]
      : Array.from({ length: connections }, () => openChaosDriver(target));
  const drivers = opened.map((o) => o.driver);
  // every connection dialled before the first race
  await Promise.all(
    Array.from({ length: connections }, (_, i) =>
      (drivers[i % drivers.length] as JobDriver).stats(),
    ),
  );
  return { drivers, close: async () => void (await Promise.all(opened.map((o) => o.close()))) };
}
