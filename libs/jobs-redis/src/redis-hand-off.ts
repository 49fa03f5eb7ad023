import {
  systemClock,
  type ClaimedJob,
  type HandOffOffer,
  type JobsLogger,
  type WakeHandOff,
  unstartedHandBack,
} from '@ultimat3/jobs';
import { Redis, type Cluster } from 'ioredis';
import { redisContext, type RedisContext } from './redis-context';
import { handedRows, HAND_OFF_STOP, type HandedRows } from './redis-hand-off-reply';
import { nackRow } from './redis-settle';

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

/** The names of a registration (see `LUA_HAND_OFF`): NUL-led, -separated and -ended. */
const namesText = (names: readonly string[]): string => `\u0000${names.join('\u0000')}\u0000`;

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
  const conn = duplicate(ctx.client, handOffConnectionName(target.workerId));
  const timers = ctx.clock ?? systemClock;
  // ioredis reconnects by itself; a failed pop is retried by the loop
  conn.on('error', () => undefined);
  const { workerId } = target;
  const list = `${ctx.prefix}hl:${workerId}`;
  /** Every queue ever registered (a stop deregisters them all), and those the last registration offered. */
  const queues = new Set<string>();
  let registered = new Set<string>();
  /** The scripts on the pop's connection (its registration goes on it, right before the pop). */
  const popCtx = redisContext(conn, ctx.prefix, ctx.clock);
  let stopping = false;
  let idleWake: (() => void) | undefined;
  /** Whether the pop's connection has run the registration script (then it is sent with the pop, in one write). */
  let proven = false;
  /** How many times the worker went idle: a turn waits only if it did not since the turn read the offers. */
  let idles = 0;
  const wakeLoop = (): void => {
    const w = idleWake;
    idleWake = undefined;
    w?.();
  };
  const offIdle = target.onIdle(() => {
    idles++;
    wakeLoop();
  });

  const log = (event: string, error: unknown): void =>
    logger?.log('warn', event, {
      workerId,
      error: error instanceof Error ? error.message : String(error),
    });

  /** Buries (dead, fenced) rows whose stored input is not JSON text, then gives the others to the worker. */
  const buryThenGive = async (
    rows: readonly ClaimedJob[],
    unreadable: readonly ClaimedJob[],
  ): Promise<void> => {
    for (const row of unreadable) {
      await nackRow(ctx, row.id, {
        workerId,
        claim: row.claim,
        kind: 'dead',
        error: `X_JOB_INPUT_INVALID: the stored input of job ${row.name} is not JSON text`,
      });
    }
    if (rows.length > 0) target.takeClaimed(rows);
  };
  const given = ({ rows, unreadable }: HandedRows): Promise<void> | undefined => {
    if (unreadable.length > 0) return buryThenGive(rows, unreadable);
    if (rows.length > 0) target.takeClaimed(rows);
    return undefined;
  };
  /**
   * Gives rows claimed for this worker to it; buries (dead, fenced) rows whose stored input is not JSON text first.
   * Rows read from the entries alone, with none to bury, are given at once: undefined, no promise, and the worker
   * starts them in the turn the pop was answered in.
   */
  const deliver = (entries: readonly unknown[]): Promise<void> | undefined => {
    const read = handedRows(ctx, workerId, entries);
    return read instanceof Promise ? read.then(given) : given(read);
  };
  const handBack = async (rows: readonly ClaimedJob[]): Promise<void> => {
    for (const row of rows) {
      await nackRow(ctx, row.id, unstartedHandBack(row)).catch((error: unknown) =>
        log('jobs.hand-off.hand-back-failed', error),
      );
    }
  };
  /** Deregisters every queue and answers what was on the list; `mark` ends a pop still waiting. */
  const leave = async (mark: boolean): Promise<unknown[]> => {
    registered = new Set();
    const left = await ctx.run('handOffLeave', [
      workerId,
      mark ? '1' : '0',
      queues.size,
      ...queues,
    ]);
    return Array.isArray(left) ? left : [];
  };
  /**
   * Registers `offers` on the pop's connection (`LUA_HAND_OFF_REGISTER`, which takes the rows still on the list off
   * each count) and deregisters the queues registered before and not offered now.
   */
  const register = (offers: readonly HandOffOffer[]): Promise<unknown> => {
    const argv: (string | number)[] = [workerId, HAND_OFF_TTL_MS, target.visibilityTimeoutMs];
    argv.push(offers.length);
    const offered = new Set<string>();
    for (const offer of offers) {
      offered.add(offer.queue);
      queues.add(offer.queue);
      argv.push(offer.queue, offer.free, namesText(offer.names));
    }
    const dropped = [...registered].filter((q) => !offered.has(q));
    argv.push(dropped.length, ...dropped);
    registered = offered;
    return popCtx.run('handOffRegister', argv);
  };
  const pause = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      idleWake = resolve;
      timers.setTimeout(wakeLoop, ms);
    });

  /** One turn: idle → register and pop; not idle → deregister, give what was handed, wait to be idle. */
  const turn = async (): Promise<void> => {
    const seen = idles;
    const offers = target.offers();
    if (offers.length === 0) {
      if (registered.size > 0) await deliver(await leave(false));
      // the worker may have gone idle while the leave was out: then look again at once
      if (!stopping && idles === seen) await new Promise<void>((resolve) => (idleWake = resolve));
      return;
    }
    let popped: Promise<[string, string] | null> | undefined;
    try {
      // the registration goes right before the pop, in one write once the connection has run it: on a fresh one (or
      // after a failure) it is answered first, since a script re-sent whole (NOSCRIPT after a restart) would otherwise
      // run only after the pop it should precede
      const registering = register(offers);
      if (!proven) await registering;
      popped = conn.blpop(list, HAND_OFF_BLOCK_S);
      await registering;
      proven = true;
      const reply = await popped;
      if (reply === null || reply[1] === HAND_OFF_STOP) return;
      const delivering = deliver([reply[1]]);
      if (delivering !== undefined) await delivering;
    } catch (error) {
      await popped?.catch(() => undefined);
      proven = false;
      if (stopping) return;
      registered = new Set(queues);
      log('jobs.hand-off.pop-failed', error);
      await pause(RETRY_MS);
    }
  };
  const loop = (async () => {
    while (!stopping) await turn();
  })();

  return {
    async stop() {
      if (stopping) return;
      stopping = true;
      offIdle();
      wakeLoop();
      try {
        const { rows } = await handedRows(ctx, workerId, await leave(true));
        await handBack(rows);
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          loop,
          new Promise<void>((resolve) => (timer = setTimeout(resolve, STOP_WAIT_MS))),
        ]);
        clearTimeout(timer);
        // a registration the loop sent as the stop began would outlive it: leave once more, without a marker
        const again = await handedRows(ctx, workerId, await leave(false));
        await handBack(again.rows);
      } catch (error) {
        log('jobs.hand-off.leave-failed', error);
      } finally {
        conn.disconnect();
      }
    },
  };
}
