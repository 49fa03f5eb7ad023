import { systemClock, type Clock, type JobsLogger, type WakeHandOff } from '@ultimat3/jobs';
import { Redis, type Cluster } from 'ioredis';
import { redisContext, type RedisContext } from './redis-context';
import { HandOffDelivery, warnHandOff } from './redis-hand-off-delivery';
import { HandOffRegistration } from './redis-hand-off-registration';
import { handedRows, HAND_OFF_STOP } from './redis-hand-off-reply';

/**
 * How long one blocking pop of a worker's hand-off list waits (s). Each pop is preceded by the registration it renews,
 * so an idle worker spends two commands per this long: ~2 a minute, inside the idle budget of 12.
 */
export const HAND_OFF_BLOCK_S = 60;
/** How long a registration outlives the pop it was sent with (ms): a worker that stops popping is not chosen past it. */
export const HAND_OFF_TTL_MS = (HAND_OFF_BLOCK_S + 15) * 1_000;
/** How long a stop waits for the blocking pop to return its stop marker before it drops the connection (ms). */
const STOP_WAIT_MS = 2_000;
/** The pause after a failed pop (Redis down or restarting) before the next registration is tried (ms, on the clock). */
const RETRY_MS = 1_000;

/** A started hand-off: `stop()` deregisters, hands back what was handed and not taken, and closes its connection. */
export interface RedisHandOff {
  stop(): Promise<void>;
}

/** The name the pop's connection carries (CLIENT LIST): `jobs-hand-off:<worker id>`. */
export const handOffConnectionName = (workerId: string): string => `jobs-hand-off:${workerId}`;

/** A connection of the pop's own, with the client's settings. */
const duplicate = (client: Redis | Cluster, name: string): Redis | Cluster =>
  client instanceof Redis
    ? client.duplicate({ connectionName: name })
    : client.duplicate(undefined, {
        redisOptions: { ...client.options.redisOptions, connectionName: name },
      });

/**
 * Starts the hand-off of one worker ({@link WakeHandOff}): while the worker is idle with free slots, a connection of
 * its own registers it for its queues (a `SET … PX` per queue, read by `LUA_HAND_OFF` in the enqueue) and blocks on
 * its list `P..'hl:'..wid`, so another process's enqueue of a row due now claims that row for it and pushes it there:
 * the pop answers a claimed row, given to the worker as its own claim's rows are. The registration is sent right
 * before each pop on the same connection, so it is renewed only while pops come back: a dead worker's lapses within
 * {@link HAND_OFF_TTL_MS}, and a row handed to it meanwhile is rescued when its lease lapses, like any claimed row.
 *
 * A worker that is not idle (a claim of its own on the wire, no free slot, draining) is deregistered and what was
 * handed to it is taken off the list and given to it at once; it registers again when a pass finds nothing. A stop
 * deregisters first, hands back (nack `handBack`) what is still on the list, and ends the pop with a stop marker.
 */
export function startHandOff(
  ctx: RedisContext,
  target: WakeHandOff,
  logger?: JobsLogger,
): RedisHandOff {
  return new HandOffLoop(ctx, target, logger);
}

/**
 * {@link startHandOff}'s loop: a turn at a time, it registers the idle worker and pops its list, or deregisters it and
 * waits for it to be idle again; `stop()` ends it.
 */
class HandOffLoop implements RedisHandOff {
  private readonly workerId: string;
  private readonly conn: Redis | Cluster;
  private readonly timers: Clock;
  private readonly list: string;
  private readonly registration: HandOffRegistration;
  private readonly delivery: HandOffDelivery;
  private stopping = false;
  private idleWake: (() => void) | undefined;
  /** Whether the pop's connection has run the registration script (then it is sent with the pop, in one write). */
  private proven = false;
  /** How many times the worker went idle: a turn waits only if it did not since the turn read the offers. */
  private idles = 0;
  private readonly offIdle: () => void;
  private readonly loop: Promise<void>;

  constructor(
    private readonly ctx: RedisContext,
    private readonly target: WakeHandOff,
    private readonly logger: JobsLogger | undefined,
  ) {
    this.conn = duplicate(ctx.client, handOffConnectionName(target.workerId));
    this.timers = ctx.clock ?? systemClock;
    // ioredis reconnects by itself; a failed pop is retried by the loop
    this.conn.on('error', () => undefined);
    const { workerId } = target;
    this.workerId = workerId;
    this.list = `${ctx.prefix}hl:${workerId}`;
    // the scripts on the pop's connection (its registration goes on it, right before the pop)
    const popCtx = redisContext(this.conn, ctx.prefix, ctx.clock);
    this.registration = new HandOffRegistration(ctx, popCtx, target, HAND_OFF_TTL_MS);
    this.delivery = new HandOffDelivery(ctx, target, logger);
    this.offIdle = target.onIdle(() => {
      this.idles++;
      this.wakeLoop();
    });
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.offIdle();
    this.wakeLoop();
    try {
      const { rows } = await handedRows(
        this.ctx,
        this.workerId,
        await this.registration.leave(true),
      );
      await this.delivery.handBack(rows);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        this.loop,
        new Promise<void>((resolve) => (timer = setTimeout(resolve, STOP_WAIT_MS))),
      ]);
      clearTimeout(timer);
      // a registration the loop sent as the stop began would outlive it: leave once more, without a marker
      const again = await handedRows(this.ctx, this.workerId, await this.registration.leave(false));
      await this.delivery.handBack(again.rows);
    } catch (error) {
      warnHandOff(this.logger, this.workerId, 'jobs.hand-off.leave-failed', error);
    } finally {
      this.conn.disconnect();
    }
  }

  /** Ends the loop's wait: for the worker to go idle, or the pause after a failed pop. */
  private readonly wakeLoop = (): void => {
    const w = this.idleWake;
    this.idleWake = undefined;
    w?.();
  };

  private async run(): Promise<void> {
    while (!this.stopping) await this.turn();
  }

  /** One turn: idle → register and pop; not idle → deregister, give what was handed, wait to be idle. */
  private async turn(): Promise<void> {
    const seen = this.idles;
    const offers = this.target.offers();
    if (offers.length === 0) {
      if (this.registration.any) {
        // a leave that fails (Redis out of reach, a script error) must not end the loop: it is logged, the worker
        // counts as registered everywhere, and the next turn leaves again
        try {
          await this.delivery.deliver(await this.registration.leave(false));
        } catch (error) {
          return this.failed('jobs.hand-off.leave-failed', error);
        }
      }
      // the worker may have gone idle while the leave was out: then look again at once
      if (!this.stopping && this.idles === seen)
        await new Promise<void>((resolve) => (this.idleWake = resolve));
      return;
    }
    let popped: Promise<[string, string] | null> | undefined;
    try {
      // the registration goes right before the pop, in one write once the connection has run it: on a fresh one (or
      // after a failure) it is answered first, since a script re-sent whole (NOSCRIPT after a restart) would otherwise
      // run only after the pop it should precede
      const registering = this.registration.register(offers);
      if (!this.proven) await registering;
      popped = this.conn.blpop(this.list, HAND_OFF_BLOCK_S);
      await registering;
      this.proven = true;
      const reply = await popped;
      // answered: a delivery that fails below must not give the row again
      popped = undefined;
      if (reply === null || reply[1] === HAND_OFF_STOP) return;
      const delivering = this.delivery.deliver([reply[1]]);
      if (delivering !== undefined) await delivering;
    } catch (error) {
      // a pop sent with a registration that failed (a script error on a live connection) may still answer a row: it
      // was claimed for this worker and taken off its list, so it is given as a pop's row is, not left to its lease
      const late = await popped?.catch(() => null);
      if (late && late[1] !== HAND_OFF_STOP) await this.giveLate(late[1]);
      return this.failed('jobs.hand-off.pop-failed', error);
    }
  }

  /** Gives a row a failed turn's pop answered; a delivery that fails is logged, and the row's lease lapses. */
  private async giveLate(entry: string): Promise<void> {
    try {
      await this.delivery.deliver([entry]);
    } catch (error) {
      warnHandOff(this.logger, this.workerId, 'jobs.hand-off.pop-failed', error);
    }
  }

  /**
   * A turn's write failed: the registrations it may have left behind count as registered, the failure is logged as
   * `event`, and the loop waits RETRY_MS (or until the worker goes idle) before its next turn.
   */
  private async failed(event: string, error: unknown): Promise<void> {
    this.proven = false;
    if (this.stopping) return;
    this.registration.answerLost();
    warnHandOff(this.logger, this.workerId, event, error);
    await this.pause(RETRY_MS);
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.idleWake = resolve;
      this.timers.setTimeout(this.wakeLoop, ms);
    });
  }
}
