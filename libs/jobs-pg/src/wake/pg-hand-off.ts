import { createHash, randomUUID } from 'node:crypto';
import {
  silentLogger,
  systemClock,
  type ClaimedJob,
  type Clock,
  type HandOffOffer,
  type JobDriver,
  type JobsLogger,
  type TimerHandle,
  type WakeHandOff,
  unstartedHandBack,
} from '@ultimat3/jobs';
import type { PgExecutor } from '../executor/pg-executor';
import { toClaimedJob, type JobRecord } from '../driver/pg-rows';
import type { OwnChannel } from './queue-wake';
import type { WakeSession } from './wake-session';

/**
 * The class half of the advisory key a worker's LISTEN session holds while it is registered for the hand-off
 * (`pg_advisory_lock(class, hashtext(worker_id))`): an enqueue hands a row only to a worker whose key is held. The
 * two-int key space is shared with the application: keep this class out of your own advisory locks. ('xjho' in ASCII.)
 */
export const HAND_OFF_LOCK_CLASS = 2_020_239_471;
/**
 * The longest a stop's leave takes (ms): the removal of the registration, the wait for the rows handed before it, and
 * their hand-backs. Past it the stop goes on (a database out of reach must not hold a shutdown): the session's end
 * lets the worker's lock go, so its registration is passed by from then, and a row handed to it and never heard is
 * rescued when its lease lapses.
 */
export const HAND_OFF_LEAVE_MS = 2_000;
/** The payload of a stop's flush marker: what follows it is the marker's own id. */
const FLUSH = 'flush/';

/** The channel `SQL_ENQUEUE_HAND_OFF` tells a worker its rows on: `x_jobs_ho_` and 16 hex digits of md5(its id). */
export function handOffChannel(workerId: string): string {
  return `x_jobs_ho_${createHash('md5').update(workerId).digest('hex').slice(0, 16)}`;
}

/** What {@link pgHandOff} needs beside the worker's side. */
export interface PgHandOffOptions {
  readonly target: WakeHandOff;
  /** The pool the flush marker is sent through (`pg_notify`). */
  readonly executor: PgExecutor;
  /** The driver a row handed while stopping is handed back through (nack `handBack`). */
  readonly driver: Pick<JobDriver, 'nack'>;
  /** The statements, qualified for the driver's schema. */
  readonly sql: { readonly handOffRegister: string; readonly handOffLeave: string };
  readonly logger?: JobsLogger;
  /** The clock the leave's bound runs on (default: the system clock). */
  readonly clock?: Clock;
}

/** A started hand-off: the wake's own channel, and `leave()`, which a stop runs before the session ends. */
export interface PgHandOff {
  readonly own: OwnChannel;
  /**
   * Removes the worker's registrations, then waits until every row handed to it before that has come in: a marker sent through the pool after the removal arrives after them, as notifications
   * arrive in commit order. Rows that come in from here on are handed back, uncounted, and the leave answers once those
   * hand-backs are — or after {@link HAND_OFF_LEAVE_MS}, whichever comes first.
   */
  leave(): Promise<void>;
}

/** The names of an offer, in a stable order: equal when it serves the same names. */
const namesText = (names: readonly string[]): string => JSON.stringify([...names].sort());

/**
 * The PostgreSQL side of a worker's hand-off ({@link WakeHandOff}), riding the wake's LISTEN session. Each time the
 * session opens it takes the worker's advisory lock ({@link HAND_OFF_LOCK_CLASS}) and registers the worker's offers
 * (`SQL_HAND_OFF_REGISTER`) there, and it listens on the worker's own channel ({@link handOffChannel}): each payload
 * is a row `SQL_ENQUEUE_HAND_OFF` claimed for this worker, given to `takeClaimed` as its own claim's rows are.
 *
 * The registration costs no statement while the worker stays idle: it is written when the session opens, and again
 * when the worker goes idle (a pass found nothing) offering a queue it is not registered for, or once half of a
 * queue's registered slots were handed — each hand-off takes one slot off the registered count and tells the worker
 * how many are left (`free_left`), and the worker renews it as it frees them. A registration outlives no session: the enqueue hands only to a worker whose lock is
 * held, which its session's end lets go; a stop removes it first ({@link PgHandOff.leave}).
 */
export function pgHandOff(options: PgHandOffOptions): PgHandOff {
  const { target, sql } = options;
  const logger = options.logger ?? silentLogger;
  const clock = options.clock ?? systemClock;
  const channel = handOffChannel(target.workerId);
  let session: WakeSession | undefined;
  /**
   * Per queue registered on the current session: the names and free count last written, and the free count the
   * registration was last known to have left (a handed row's `free_left`, or the count written).
   */
  const counts = new Map<string, { names: string; free: number; left: number }>();
  let writing: Promise<void> | undefined;
  let again = false;
  let leaving = false;
  let flushed: { token: string; done: () => void } | undefined;

  const log = (event: string, error: unknown): void =>
    logger.log('warn', event, {
      workerId: target.workerId,
      error: error instanceof Error ? error.message : String(error),
    });

  /**
   * Whether the registration is worth writing: a queue offered is not registered, or for other names, or at most half
   * of its registered slots are left and the worker can take more than that. Nothing else moves it: each write
   * locks the rows enqueues hand through (they pass it by), a worker with no slot free offers nothing (and hands back
   * what it cannot start), and a free count a little high costs a hand-back, never a job.
   */
  const stale = (offers: readonly HandOffOffer[]): boolean =>
    offers.some((o) => {
      const c = counts.get(o.queue);
      if (c === undefined || c.names !== namesText(o.names)) return true;
      return c.left * 2 <= c.free && o.free > c.left;
    });

  /** Set when the schema has no `x_job_hand_offs` (predates migration 0018): nothing is registered until a re-dial. */
  let absent = false;
  const write = async (current: WakeSession): Promise<void> => {
    if (absent) return;
    const offers = target.offers();
    if (!stale(offers)) return;
    // counted before the write is sent: a row handed once it commits tells its own count, one handed before it an
    // older (lower) one — so what is known never stays above what is left, and a registration never sits at 0 unnoticed
    for (const o of offers)
      counts.set(o.queue, { names: namesText(o.names), free: o.free, left: o.free });
    try {
      await current.query(sql.handOffRegister, [
        target.workerId,
        JSON.stringify(offers.map((o) => ({ queue: o.queue, free: o.free, names: o.names }))),
        target.visibilityTimeoutMs,
      ]);
    } catch (error) {
      for (const o of offers) counts.delete(o.queue);
      throw error;
    }
  };

  /** A write that failed: logged, and on a schema without the table, no write more until the session re-opens. */
  const failed = (error: unknown): void => {
    if ((error as { code?: unknown } | null)?.code === '42P01') absent = true;
    log('jobs.hand-off.register-failed', error);
  };

  /** Registers what the worker offers now on the session, one write at a time (a request meanwhile runs after it). */
  const register = (): void => {
    const current = session;
    if (current === undefined || leaving) return;
    if (writing !== undefined) {
      again = true;
      return;
    }
    writing = write(current)
      .catch(failed)
      .finally(() => {
        writing = undefined;
        if (again) {
          again = false;
          register();
        }
      });
  };
  const offIdle = target.onIdle(register);

  /** Hand-backs of rows heard while leaving, not yet answered: the leave waits for them. */
  const backs = new Set<Promise<unknown>>();
  const handBack = (row: ClaimedJob): void => {
    const back = options.driver
      .nack(row.id, unstartedHandBack(row))
      .catch((error: unknown) => log('jobs.hand-off.hand-back-failed', error))
      .finally(() => backs.delete(back));
    backs.add(back);
  };

  const heard = (payload: string): void => {
    if (payload.startsWith(FLUSH)) {
      if (flushed?.token === payload) flushed.done();
      return;
    }
    let row: ClaimedJob;
    let left: unknown;
    try {
      const record = JSON.parse(payload) as JobRecord & { free_left?: unknown };
      row = toClaimedJob(record);
      left = record.free_left;
    } catch (error) {
      // nothing of ours writes such a payload: the row, if there is one, is rescued when its lease lapses
      log('jobs.hand-off.unreadable', error);
      return;
    }
    if (leaving) return handBack(row);
    const c = counts.get(row.queue);
    // a row handed before the last write can arrive after it: its count is older, and at worst costs a write early
    if (c !== undefined) c.left = typeof left === 'number' ? left : c.left - 1;
    target.takeClaimed([row]);
  };

  /** The leave's steps, unbounded ({@link PgHandOff.leave} bounds them). */
  const leaveNow = async (): Promise<void> => {
    await writing;
    const current = session;
    if (current === undefined) return;
    try {
      await current.query(sql.handOffLeave, [target.workerId]);
      const token = `${FLUSH}${randomUUID()}`;
      await new Promise<void>((resolve) => {
        flushed = { token, done: resolve };
        options.executor
          .query('select pg_notify($1::text, $2::text)', [channel, token])
          .catch(resolve);
      });
    } catch (error) {
      log('jobs.hand-off.leave-failed', error);
    }
    await Promise.all([...backs]);
  };

  return {
    own: {
      channel,
      async opened(current) {
        session = current;
        counts.clear();
        absent = false;
        await current.query('select pg_advisory_lock($1::int, hashtext($2::text))', [
          HAND_OFF_LOCK_CLASS,
          target.workerId,
        ]);
        if (!leaving) await write(current).catch(failed);
      },
      heard,
      lost() {
        session = undefined;
        counts.clear();
      },
    },
    async leave() {
      if (leaving) return;
      leaving = true;
      offIdle();
      let timer: TimerHandle | undefined;
      await Promise.race([
        leaveNow(),
        new Promise<void>((resolve) => (timer = clock.setTimeout(resolve, HAND_OFF_LEAVE_MS))),
      ]);
      timer?.cancel();
    },
  };
}
