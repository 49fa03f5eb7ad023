/** A connection as the guard sees it: something that emits `'error'`. */
interface ErrorEmitter {
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/** The part of a `pg.Pool` the guard hooks: `'acquire'`, emitted as a connection is handed out, new or idle. */
interface AcquiringPool {
  on(event: 'acquire', listener: (client: ErrorEmitter) => void): unknown;
}

const guardedPools = new WeakSet<object>();
const guardedClients = new WeakSet<object>();
const heardElsewhere = (): void => undefined;

const isAcquiringPool = (pool: unknown): pool is AcquiringPool =>
  typeof pool === 'object' && pool !== null && typeof (pool as { on?: unknown }).on === 'function';

/**
 * Gives each connection `pool` hands out an `'error'` listener for the rest of its life, so that a connection dying
 * while no one listens on it cannot end the process.
 *
 * `pg-pool` listens on a connection only while it is idle: it removes its listener as it hands the connection out,
 * and a caller that awaits the checkout (`await pool.connect()`, TypeORM's query runner) adds its own a microtask
 * later. When one socket read carries a new connection's ReadyForQuery and then a FATAL (a server stopping: 57P01, a
 * `pg_terminate_backend`), the parser emits the FATAL between the two: an `'error'` with no listener is an uncaught
 * exception (brianc/node-postgres#2762). Heard here, it loses nothing: `pg` fails the connection's queries with it and
 * marks the connection not queryable, so the statement that awaited it fails as a lost connection would, and the pool
 * destroys the connection when it comes back.
 *
 * Idempotent per pool and per connection; anything that is not an event emitter is left alone. A connection the
 * pool opened before the guard is guarded at its next checkout.
 */
export function guardPoolClients(pool: unknown): void {
  if (!isAcquiringPool(pool) || guardedPools.has(pool)) return;
  guardedPools.add(pool);
  pool.on('acquire', (client) => {
    if (guardedClients.has(client)) return;
    guardedClients.add(client);
    client.on('error', heardElsewhere);
  });
}
