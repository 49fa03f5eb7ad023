import type { Clock, JobDriver, JobsLogger, WakeHandOff } from '@ultimat3/jobs';
import type { PgExecutor } from '../executor/pg-executor';
import { postgresJobDriver } from '../driver/pg-driver';
import { statementsFor } from '../driver/statements';
import { pgHandOff } from './pg-hand-off';
import { startQueueWake, type QueueWake, type WakeTarget } from './queue-wake';
import type { WakeListener } from './wake-session';

/** A worker's wake target, with its hand-off side when it takes rows claimed for it. */
export interface WorkerWakeTarget extends WakeTarget {
  /** The worker's hand-off side, when it takes rows claimed for it. */
  readonly handOff?: WakeHandOff;
}

/** Options of {@link startWorkerWake}. */
export interface StartWorkerWakeOptions {
  /** The LISTEN session: a dedicated `pg.Client`, or a factory dialling one. */
  readonly listener: WakeListener;
  /** The pool the wake's probes (and the hand-off's statements) are sent through. */
  readonly executor: PgExecutor;
  /** The worker to wake. */
  readonly target: WorkerWakeTarget;
  /** The schema the tables live in (default: found through `search_path`). */
  readonly schema?: string;
  /** The driver rows handed while the worker stops are handed back through (default: one over `executor`, `schema`). */
  readonly driver?: Pick<JobDriver, 'nack'>;
  /** The hand-off's statements (default: qualified for `schema`). */
  readonly sql?: { readonly handOffRegister: string; readonly handOffLeave: string };
  /** Where the wake logs (default a silent logger). */
  readonly logger?: JobsLogger;
  /** The clock the wake's timers and the hand-off's leave bound run on (default: the system clock). */
  readonly clock?: Clock;
}

/**
 * A worker's wake on PostgreSQL: the proven LISTEN session of {@link startQueueWake}, and — when the target has a
 * hand-off side — the hand-off riding that session ({@link pgHandOff}): the worker registered while idle, rows claimed
 * for it by other processes' enqueues delivered on its own channel. Its stop removes the registration and takes in
 * what was handed until then before the session ends.
 */
export function startWorkerWake(options: StartWorkerWakeOptions): QueueWake {
  const { target } = options;
  const handOff =
    target.handOff === undefined
      ? undefined
      : pgHandOff({
          target: target.handOff,
          executor: options.executor,
          driver:
            options.driver ??
            postgresJobDriver({
              executor: options.executor,
              ...(options.schema === undefined ? {} : { schema: options.schema }),
            }),
          sql: options.sql ?? statementsFor(options.schema),
          ...(options.logger === undefined ? {} : { logger: options.logger }),
          ...(options.clock === undefined ? {} : { clock: options.clock }),
        });
  const wake = startQueueWake({
    listener: options.listener,
    executor: options.executor,
    target,
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(handOff === undefined ? {} : { own: handOff.own }),
  });
  // every stop answers the one run: a second one must not end the session under the first's leave
  let stopping: Promise<void> | undefined;
  const stopNow = async (): Promise<void> => {
    await handOff?.leave();
    await wake.stop();
  };
  return {
    live: () => wake.live(),
    ready: () => wake.ready(),
    stop: () => (stopping ??= stopNow()),
  };
}
