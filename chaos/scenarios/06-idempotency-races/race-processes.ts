/**
 * The spec side of scenario 6's processes: forking the racers, asking them for a race and reading the answer, and the
 * seeded draws (lags, transaction plans) the races follow.
 */
import { join } from 'node:path';
import { ChaosProcess } from '../../harness/processes';
import { announceSeed, chaosRandom, chaosSeed, seedFor } from '../../harness/schedule';
import type { TxPlan } from './tx-racer';

/** Starts `count` processes of `entry` (a file of this folder) with the JSON `config`, each ready to race. */
export async function spawnRacers(
  entry: string,
  count: number,
  config: object,
): Promise<ChaosProcess[]> {
  const racers = Array.from(
    { length: count },
    (_, i) =>
      new ChaosProcess({
        entry: join(__dirname, entry),
        args: [JSON.stringify(config)],
        label: `${entry}#${i}`,
      }),
  );
  await Promise.all(racers.map((r) => r.start()));
  return racers;
}

/** Asks every racer at once and answers their replies' `field` lists, concatenated. */
export async function askAll<T>(
  racers: readonly ChaosProcess[],
  type: string,
  field: string,
  fields: (i: number) => Record<string, unknown>,
  timeoutMs: number,
): Promise<T[]> {
  const replies = await Promise.all(racers.map((r, i) => r.request(type, timeoutMs, fields(i))));
  return replies.flatMap((reply) => {
    if (reply.error !== undefined) throw new Error(`racer failed: ${String(reply.error)}`);
    return reply[field] as T[];
  });
}

/** The seeded draws of one run. */
export interface RaceSeed {
  readonly value: number;
  /** `count` lags in event-loop turns, from `-max` to `max`: which of the ack and the enqueue starts first. */
  lags(count: number, max: number): number[];
  /** `lanes` lists of `count` transaction plans: half commit, the rest rolled back, terminated or abandoned. */
  plans(lanes: number, count: number): TxPlan[][];
}

/** The draws of the run `label`, from `CHAOS_SEED` when set (printed, so a red run replays). */
export function raceSeed(label: string): RaceSeed {
  const value = chaosSeed();
  announceSeed(label, value);
  const stream = chaosRandom(seedFor(value, label));
  const random = (): number => stream.next();
  const int = (n: number): number => stream.int(n);
  const others: TxPlan[] = ['rollback', 'terminate', 'abandon'];
  return {
    value,
    lags: (count, max) => Array.from({ length: count }, () => int(2 * max + 1) - max),
    plans: (lanes, count) =>
      Array.from({ length: lanes }, () =>
        Array.from({ length: count }, () =>
          random() < 0.5 ? 'commit' : (others[int(3)] as TxPlan),
        ),
      ),
  };
}
