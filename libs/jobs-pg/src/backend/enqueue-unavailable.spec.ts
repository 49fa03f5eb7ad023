import { createServer } from 'node:net';
import { Client, Pool } from 'pg';
import {
  DriverUnavailableError,
  errorCodeOf,
  JobsError,
  type EnqueueRequest,
} from '@ultimat3/jobs';
import { testDatabaseUrl } from '../../../../test/test-env';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { request } from '../../test/requests';
import { postgresJobDriver } from '../driver/pg-driver';
import { pgPoolExecutor } from '../executor/pg-pool-executor';
import { postgresBackend, type PostgresBackend } from './pg-backend';

/** What an enqueue threw, or 'resolved'. */
async function thrown(enqueue: Promise<unknown>): Promise<unknown> {
  return enqueue.then(
    () => 'resolved',
    (error: unknown) => error,
  );
}

describe('an enqueue while PostgreSQL is out of reach is X_DRIVER_UNAVAILABLE, never a raw pg error', () => {
  let admin: Client;
  let backend: PostgresBackend | undefined;

  const db = pgJobsSpec({
    beforeDrop: async () => {
      await backend?.close();
      await admin.query(`alter database ${db.name} with allow_connections true`);
      await admin.end();
    },
  });
  beforeAll(async () => {
    admin = new Client({ connectionString: testDatabaseUrl() }); // the server's own database, not the victim
    await admin.connect();
  });

  it('refuses every enqueue while the database refuses connections, and enqueues again once it is back', async () => {
    backend = await postgresBackend({ url: db.url, poolSize: 2 });
    const { driver } = backend;
    await driver.enqueue(request()); // a pooled session is open when the database goes away

    await admin.query(`alter database ${db.name} with allow_connections false`);
    await admin.query(
      'select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
      [db.name],
    );
    const failures: unknown[] = [];
    // one at a time (a session killed under it), several at once (the coalesced batch), and a bulk enqueue
    failures.push(await thrown(driver.enqueue(request())));
    failures.push(await thrown(driver.enqueue(request())));
    failures.push(...(await Promise.all([1, 2, 3].map(() => thrown(driver.enqueue(request()))))));
    failures.push(await thrown(driver.enqueueMany([request(), request()])));
    for (const failure of failures) {
      expect(failure).toBeInstanceOf(JobsError);
      expect(errorCodeOf(failure)).toBe('X_DRIVER_UNAVAILABLE');
    }
    // once the pool's sessions are gone, a new one is refused at connect: the row certainly was not written
    expect(failures.at(-1)).toBeInstanceOf(DriverUnavailableError);

    await admin.query(`alter database ${db.name} with allow_connections true`);
    const queued: EnqueueRequest = request();
    await expect(driver.enqueue(queued)).resolves.toMatchObject({ id: queued.id });
  });

  it('says so for a driver built by hand over a pool whose server refuses the port', async () => {
    const port = await new Promise<number>((resolve) => {
      const server = createServer();
      server.listen(0, '127.0.0.1', () => {
        const address = server.address();
        server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
      });
    });
    const pool = new Pool({ host: '127.0.0.1', port, user: 'nobody', database: 'nothing' });
    try {
      const driver = postgresJobDriver({ executor: pgPoolExecutor(pool) });
      const failure = await thrown(driver.enqueue(request()));
      expect(failure).toBeInstanceOf(DriverUnavailableError);
      expect((failure as JobsError).cause).toMatchObject({ code: 'ECONNREFUSED' });
    } finally {
      await pool.end();
    }
  });
});
