import { createHash, randomUUID } from 'node:crypto';
import {
  silentLogger,
  systemClock,
  type ClaimedJob,
  type Clock,
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
import { HandOffCounts } from './hand-off-counts';

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
  /** The worker's side of the hand-off. */
  readonly target: WakeHandOff;
  /** The pool the flush marker is sent through (`pg_notify`). */
  readonly executor: PgExecutor;
  /** The driver a row handed while stopping is handed back through (nack `handBack`). */
  readonly driver: Pick<JobDriver, 'nack'>;
  /** The statements, qualified for the driver's schema. */
  readonly sql: { readonly handOffRegister: string; readonly handOffLeave: string };
  /** Where the hand-off logs (default a silent logger). */
  readonly logger?: JobsLogger;
  /** The clock the leave's bound runs on (default: the system clock). */
  readonly clock?: Clock;
}

/** A started hand-off: the wake's own channel, and `leave()`, which a stop runs before the session ends. */
export interface PgHandOff {
  /** The channel the hand-off listens on, on the wake's session. */
  readonly own: OwnChannel;
  /**
   * Removes the worker's registrations, then waits until every row handed to it before that has come in: a marker sent
   * through the pool after the removal arrives after them, as notifications arrive in commit order. Rows that come in
   * from here on are handed back, uncounted, and the leave answers once those hand-backs are — or after
   * {@link HAND_OFF_LEAVE_MS}, whichever comes first.
   */
  leave(): Promise<void>;
}

/**
 * The PostgreSQL side of a worker's hand-off ({@link WakeHandOff}), riding the wake's LISTEN session. Each time the
 * session opens it takes the worker's advisory lock ({@link HAND_OFF_LOCK_CLASS}) and registers the worker's offers
 * (`SQL_HAND_OFF_REGISTER`) there, and it listens on the worker's own channel ({@link handOffChannel}): each payload
 * is a row `SQL_ENQUEUE_HAND_OFF` claimed for this worker, given to `takeClaimed` as its own claim's rows are.
 *
 * The registration costs no statement while the worker stays idle: it is written when the session opens, and again when
 * the worker goes idle (a pass found nothing) offering a queue it is not registered for, or once half of a queue's
 * registered slots were handed — each hand-off takes one slot off the registered count and tells the worker how many
 * are left (`free_left`), and the worker renews it as it frees them. A registration outlives no session: the enqueue
 * hands only to a worker whose lock is held, which its session's end lets go; a stop removes it first
 * ({@link PgHandOff.leave}).
 */
export function pgHandOff(options: PgHandOffOptions): PgHandOff {
  const side = new HandOffSide(options);
  return {
    own: {
      channel: side.channel,
      opened: (current) => side.opened(current),
      heard: side.heard,
      lost: () => side.lost(),
    },
    leave: () => side.leave(),
  };
}

/**
 * The state of a started hand-off: the session it registers on, what the registration holds, the write in flight, and
 * the leave's flush marker and hand-backs.
 */
class HandOffSide {
  readonly channel: string;
  private readonly target: WakeHandOff;
  private readonly logger: JobsLogger;
  private readonly clock: Clock;
  private session: WakeSession | undefined;
  private readonly counts = new HandOffCounts();
  private writing: Promise<void> | undefined;
  private again = false;
  private leaving = false;
  private flushed: { token: string; done: () => void } | undefined;
  /** Set when the schema has no `x_job_hand_offs` (predates migration 0018): nothing is registered until a re-dial. */
  private absent = false;
  private readonly offIdle: () => void;
  /** Hand-backs of rows heard while leaving, not yet answered: the leave waits for them. */
  private readonly backs = new Set<Promise<unknown>>();
  /** The leave in flight or done: every caller of {@link PgHandOff.leave} awaits this one. */
  private left: Promise<void> | undefined;

  constructor(private readonly options: PgHandOffOptions) {
    this.target = options.target;
    this.logger = options.logger ?? silentLogger;
    this.clock = options.clock ?? systemClock;
    this.channel = handOffChannel(this.target.workerId);
    this.offIdle = this.target.onIdle(this.register);
  }

  private log(event: string, error: unknown): void {
    this.logger.log('warn', event, {
      workerId: this.target.workerId,
      error: error instanceof Error ? error.message : String(error),
    });
  }

  private async write(current: WakeSession): Promise<void> {
    if (this.absent) return;
    const offers = this.target.offers();
    if (!this.counts.stale(offers)) return;
    // counted before the write is sent: a row handed once it commits tells its own count, one handed before it an
    // older (lower) one — so what is known never stays above what is left, and a registration never sits at 0
    // unnoticed
    this.counts.written(offers);
    try {
      await current.query(this.options.sql.handOffRegister, [
        this.target.workerId,
        JSON.stringify(offers.map((o) => ({ queue: o.queue, free: o.free, names: o.names }))),
        this.target.visibilityTimeoutMs,
      ]);
    } catch (error) {
      this.counts.forget(offers);
      throw error;
    }
  }

  /** A write that failed: logged, and on a schema without the table, no write more until the session re-opens. */
  private readonly failed = (error: unknown): void => {
    if ((error as { code?: unknown } | null)?.code === '42P01') this.absent = true;
    this.log('jobs.hand-off.register-failed', error);
  };

  /** Registers what the worker offers now on the session, one write at a time (a request meanwhile runs after it). */
  private readonly register = (): void => {
    const current = this.session;
    if (current === undefined || this.leaving) return;
    if (this.writing !== undefined) {
      this.again = true;
      return;
    }
    this.writing = this.write(current)
      .catch(this.failed)
      .finally(() => {
        this.writing = undefined;
        if (this.again) {
          this.again = false;
          this.register();
        }
      });
  };

  private handBack(row: ClaimedJob): void {
    const back = this.options.driver
      .nack(row.id, unstartedHandBack(row))
      .catch((error: unknown) => this.log('jobs.hand-off.hand-back-failed', error))
      .finally(() => this.backs.delete(back));
    this.backs.add(back);
  }

  /** Told each payload of the worker's own channel: a row handed to it, or a stop's flush marker. */
  readonly heard = (payload: string): void => {
    if (payload.startsWith(FLUSH)) {
      if (this.flushed?.token === payload) this.flushed.done();
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
      this.log('jobs.hand-off.unreadable', error);
      return;
    }
    if (this.leaving) return this.handBack(row);
    this.counts.handed(row.queue, left);
    this.target.takeClaimed([row]);
  };

  /** The leave's steps, unbounded ({@link PgHandOff.leave} bounds them). */
  private async leaveNow(): Promise<void> {
    await this.writing;
    const current = this.session;
    if (current === undefined) return;
    try {
      await current.query(this.options.sql.handOffLeave, [this.target.workerId]);
      const token = `${FLUSH}${randomUUID()}`;
      await new Promise<void>((resolve) => {
        this.flushed = { token, done: resolve };
        this.options.executor
          .query('select pg_notify($1::text, $2::text)', [this.channel, token])
          .catch(resolve);
      });
    } catch (error) {
      this.log('jobs.hand-off.leave-failed', error);
    }
    await Promise.all([...this.backs]);
  }

  /** The wake's session opened and was proven: takes the worker's lock there and registers its offers. */
  async opened(current: WakeSession): Promise<void> {
    this.session = current;
    this.counts.clear();
    this.absent = false;
    await current.query('select pg_advisory_lock($1::int, hashtext($2::text))', [
      HAND_OFF_LOCK_CLASS,
      this.target.workerId,
    ]);
    if (!this.leaving) await this.write(current).catch(this.failed);
  }

  /** The wake's session dropped: nothing is registered on it any more. */
  lost(): void {
    this.session = undefined;
    this.counts.clear();
  }

  /** {@link PgHandOff.leave}: the leave's steps, bounded by {@link HAND_OFF_LEAVE_MS}; every call answers the one run. */
  leave(): Promise<void> {
    this.left ??= this.leaveOnce();
    return this.left;
  }

  private async leaveOnce(): Promise<void> {
    this.leaving = true;
    const { offIdle } = this;
    offIdle();
    let timer: TimerHandle | undefined;
    await Promise.race([
      this.leaveNow(),
      new Promise<void>((resolve) => (timer = this.clock.setTimeout(resolve, HAND_OFF_LEAVE_MS))),
    ]);
    timer?.cancel();
  }
}
