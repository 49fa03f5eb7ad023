import { createServer } from 'node:net';
import { Pool } from 'pg';
import { errorCodeOf } from '@ultimat3/jobs';
import { pgPoolExecutor } from '../executor/pg-pool-executor';
import { postgresJobDriver } from './pg-driver';

/** A port nothing listens on: one the kernel handed out, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('the PostgreSQL driver ping', () => {
  it('names a database out of reach as X_DRIVER_UNAVAILABLE, not as an enqueue that queued no job', async () => {
    const pool = new Pool({
      connectionString: `postgres://nobody@127.0.0.1:${await closedPort()}/none`,
      connectionTimeoutMillis: 2_000,
    });
    try {
      const driver = postgresJobDriver({ executor: pgPoolExecutor(pool) });
      const error = await (driver.ping?.() ?? Promise.resolve()).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(errorCodeOf(error)).toBe('X_DRIVER_UNAVAILABLE');
      expect(String(error)).toMatch(/PostgreSQL is out of reach \(.*ECONNREFUSED.*\)\./);
      expect(String(error)).not.toContain('the job was not queued');
    } finally {
      await pool.end();
    }
  });
});
