/**
 * One racer process of scenario 6, a chaos child process (`chaos/harness/child.ts`; config `{ target, connections }`). It opens
 * `connections` connections to the jobs backend (a pool of that many on PostgreSQL, that many clients on Redis), says
 * `ready`, then answers the spec's requests:
 *
 * - `burst`: at the wall-clock time `fireAt`, `callers` enqueues of one key at once, spread over its connections;
 *   answers every caller's answer.
 * - `completion`: `rounds` completion races on each of `lanes` lanes at once (a lane is a queue of its own), the
 *   ack on one connection and the racing enqueue on another, the lag of each round drawn from `lags`.
 */
import type { JobDriver } from '@ultimat3/jobs';
import { chaosChildConfig, runChaosChild, serveChaosChild } from '../../harness/child';
import type { ChaosTarget } from '../../harness/drivers';
import { openRaceDrivers } from './race-drivers';
import { burst, completionRound, raceRequest, until, type CompletionRound } from './race-rounds';

interface BurstCommand {
  readonly queue: string;
  readonly key: string;
  readonly fireAt: number;
  readonly callers: number;
  readonly onConflict: 'dedupe' | 'error';
}

interface CompletionCommand {
  readonly label: string;
  readonly lanes: number;
  /** One lag per round (event-loop turns; negative: the enqueue starts first), the same list for every lane. */
  readonly lags: readonly number[];
  /** Every `errorEvery`-th round races an `onConflict: 'error'` enqueue instead of a dedupe. */
  readonly errorEvery: number;
}

async function completion(
  drivers: readonly JobDriver[],
  c: CompletionCommand,
): Promise<CompletionRound[]> {
  const lanes = Array.from({ length: c.lanes }, async (_, lane) => {
    // the ack and the racing enqueue go through different connections
    const acker = drivers[(2 * lane) % drivers.length] as JobDriver;
    const enqueuer = drivers[(2 * lane + 1) % drivers.length] as JobDriver;
    const rounds: CompletionRound[] = [];
    for (let round = 0; round < c.lags.length; round++) {
      const onConflict = round % c.errorEvery === c.errorEvery - 1 ? 'error' : 'dedupe';
      const key = `done:${c.label}:${lane}:${round}`;
      // a queue per round: the row a created racing enqueue leaves is never the next round's claim
      const queue = `race-${c.label}-${lane}-${round}`;
      const lag = c.lags[round] ?? 0;
      rounds.push(await completionRound(acker, enqueuer, queue, key, lag, onConflict));
    }
    return rounds;
  });
  return (await Promise.all(lanes)).flat();
}

async function main(): Promise<void> {
  const { target, connections } = chaosChildConfig<{ target: ChaosTarget; connections: number }>();
  const opened = await openRaceDrivers(target, connections);
  serveChaosChild({
    answer: async (type, message) => {
      if (type === 'burst') {
        const command = message as unknown as BurstCommand;
        const requests = Array.from({ length: command.callers }, () =>
          raceRequest(command.queue, command.key, command.onConflict),
        );
        await until(command.fireAt);
        return { answers: await burst(opened.drivers, requests) };
      }
      return { rounds: await completion(opened.drivers, message as unknown as CompletionCommand) };
    },
    shutdown: () => opened.close(),
  });
}

runChaosChild(main);
