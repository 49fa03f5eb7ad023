/**
 * Scenario 7's process: an app and its worker in one process (the memory driver lives in one), a chaos child
 * (config {@link BadInputConfig}). The worker serves the scenario's queue from the start; the spec then asks:
 *
 * - `seed`: good jobs, the table of bad input (`bad-input-table.ts`) and the rows that must wait — a 30-day delay, a
 *   run time in 2100, a job that sleeps 40 days, rows of a job name nobody serves, and fragile rows due in 1.5 s
 *   whose stored input the spec corrupts in the database meanwhile (on memory, written under the driver with an input
 *   the job's schema refuses). Answers the cases' results and the ids to follow.
 * - `more`: more good jobs, enqueued after the bad input went through.
 * - `rows`: the rows of `ids` as the driver holds them; `status`: the TimeoutOverflowWarnings this process saw and
 *   the worker's log events by name.
 */
import { Pool } from 'pg';
import {
  directJobsFacade,
  JobRegistry,
  jobWorker,
  memoryJobDriver,
  setJobsFacade,
  uuidv7,
  type JobDriver,
  type JobsLogger,
} from '@ultimat3/jobs';
import { chaosChildConfig, runChaosChild, serveChaosChild } from '../../harness/child';
import { openChaosDriver, type ChaosTarget } from '../../harness/drivers';
import { truthWriter } from '../../harness/ground-truth';
import { chaosRequest } from '../../harness/requests';
import { badInputCases, codeOf, runCases } from './bad-input-table';
import { fragileJob, goodJob, QUEUE, recordInto, sleeperJob, echoJob } from './bad-input-jobs';

/** The JSON config of the process. */
export interface BadInputConfig {
  /** The jobs backend: `memory` (in this process) or a chaos run's target. */
  readonly target: ChaosTarget | { readonly driver: 'memory' };
  readonly truthUrl: string;
  readonly run: string;
  /** Good jobs per `seed` and per `more`. */
  readonly goods: number;
  /** Fragile rows (corrupted by the spec before they are due). */
  readonly fragile: number;
}

/** The job name no worker serves, written on the served queue. */
export const GHOST_JOB = 'chaos.ghost';

function openDriver(target: BadInputConfig['target']): {
  driver: JobDriver;
  close(): Promise<void>;
} {
  if (target.driver === 'memory') {
    const driver = memoryJobDriver();
    return { driver, close: () => driver.close() };
  }
  return openChaosDriver(target, { poolSize: 8 });
}

async function main(): Promise<void> {
  const config = chaosChildConfig<BadInputConfig>();
  let overflows = 0;
  process.on('warning', (warning) => {
    if (warning.name === 'TimeoutOverflowWarning') overflows++;
  });
  const truthPool = new Pool({ connectionString: config.truthUrl, max: 4 });
  truthPool.on('error', () => undefined);
  const truth = truthWriter({ pool: truthPool, run: config.run });
  recordInto(truth);
  const opened = openDriver(config.target);
  const { driver } = opened;
  const events = new Map<string, number>();
  const logger: JobsLogger = {
    log: (_level, event) => events.set(event, (events.get(event) ?? 0) + 1),
  };
  const registry = new JobRegistry();
  for (const j of [goodJob, echoJob, fragileJob, sleeperJob]) registry.register(j);
  const worker = jobWorker({
    driver,
    registry,
    logger,
    concurrency: 8,
    pollIntervalMs: 50,
    idlePollMaxMs: 200,
  });
  setJobsFacade(directJobsFacade({ driver, onEnqueued: (queue) => worker.signalEnqueued(queue) }));
  await worker.start();

  let nextGood = 0;
  const goods = async (): Promise<string[]> => {
    const ids: string[] = [];
    for (let i = 0; i < config.goods; i++) ids.push((await goodJob.enqueue({ n: nextGood++ })).id);
    return ids;
  };
  const seed = async (): Promise<Record<string, unknown>> => {
    const before = await goods();
    const cases = await runCases(badInputCases(driver, 1));
    const far = [
      (await goodJob.enqueue({ n: 1_000_000 }, { delay: '30d' })).id,
      (await goodJob.enqueue({ n: 1_000_001 }, { runAt: Date.UTC(2100, 0, 1) })).id,
    ];
    const sleeper = (await sleeperJob.enqueue({ n: 1 })).id;
    const ghost: string[] = [];
    for (let i = 0; i < 3; i++) {
      const id = uuidv7();
      await driver.enqueue(
        chaosRequest({
          id,
          name: GHOST_JOB,
          queue: QUEUE,
          input: { i },
          idempotencyKey: `ghost:${i}`,
          maxAttempts: 3,
        }),
      );
      ghost.push(id);
    }
    const fragile: string[] = [];
    for (let i = 0; i < config.fragile; i++) {
      if (config.target.driver !== 'memory') {
        fragile.push((await fragileJob.enqueue({ n: i }, { delay: 1_500 })).id);
        continue;
      }
      // memory keeps no text to corrupt: the row is written under the driver with an input its schema refuses
      const id = uuidv7();
      await driver.enqueue(
        chaosRequest({
          id,
          name: fragileJob.name,
          queue: QUEUE,
          input: { n: 'corrupt' },
          idempotencyKey: `fragile:${i}`,
          runAt: Date.now() + 1_500,
          maxAttempts: 2,
        }),
      );
      fragile.push(id);
    }
    return { cases, ids: { before, far, sleeper, ghost, fragile } };
  };

  serveChaosChild({
    answer: async (type, message) => {
      if (type === 'seed') return seed();
      if (type === 'more') return { ids: await goods() };
      if (type === 'rows') {
        const rows = await Promise.all(
          (message.ids as string[]).map((id) =>
            driver.get(id).then(
              (r) => r && { id: r.id, state: r.state, attempt: r.attempt, lastError: r.lastError },
              // a read the driver could not answer is an answer too: the spec counts it
              (error: unknown) => ({
                id,
                state: 'unreadable',
                attempt: -1,
                lastError: codeOf(error),
              }),
            ),
          ),
        );
        return { rows };
      }
      return { overflows, events: Object.fromEntries(events) };
    },
    shutdown: async () => {
      worker.beginDrain('SIGTERM');
      await worker.stop();
      await truth.flush();
      await opened.close();
      await truthPool.end();
    },
  });
}

runChaosChild(main);
