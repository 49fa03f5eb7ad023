import 'reflect-metadata';
import { EventEmitter } from 'node:events';
import { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { testDatabaseUrl } from '../../../../test/test-env';
import {
  startFatalAfterReadyProxy,
  type FatalAfterReadyProxy,
} from '../../test/fatal-after-ready-proxy';
import { createTestDatabase } from '../../test/test-database';
import { postgresBackend } from '../backend/pg-backend';
import { pgPoolExecutor } from './pg-pool-executor';
import { guardPoolClients } from './pool-client-guard';
import { typeormExecutor } from './typeorm-executor';

/**
 * A new connection's ReadyForQuery and a FATAL read in one chunk (the server stopping just as the session became
 * ready): pg emits the FATAL before a caller awaiting the checkout has put its listener on, and pg-pool has taken
 * its own off. Unguarded, that 'error' has no listener: an uncaught exception that fails the test (and ends a
 * worker). Guarded, the statement that awaited the connection fails, the pool drops it, and the next statement runs.
 */
describe('guardPoolClients: a connection ended in the instant it is handed out', () => {
  let proxy: FatalAfterReadyProxy;

  beforeEach(async () => {
    proxy = await startFatalAfterReadyProxy(testDatabaseUrl());
  });
  afterEach(async () => {
    await proxy.close();
  });

  it('pgPoolExecutor over a pg.Pool: the statement fails, the next one runs on a fresh connection', async () => {
    const pool = new Pool({ connectionString: proxy.url, max: 2 });
    pool.on('error', () => undefined);
    try {
      const executor = pgPoolExecutor(pool);
      proxy.arm(1);
      await expect(executor.query('select $1::int as n', [1])).rejects.toThrow(
        /not queryable|terminat/i,
      );
      expect(proxy.ended).toBe(1);
      await expect(executor.query('select $1::int as n', [2])).resolves.toMatchObject({
        rows: [{ n: 2 }],
      });
      expect(pool.totalCount).toBe(1);
    } finally {
      await pool.end();
    }
  });

  it("typeormExecutor over a DataSource: TypeORM's query runner too, and the app's own queries after", async () => {
    const dataSource = new DataSource({ type: 'postgres', url: proxy.url, poolSize: 4 });
    await dataSource.initialize();
    try {
      const executor = typeormExecutor(dataSource);
      await executor.query('select 1 as warm', []);
      // one statement holds the idle connection, so the other needs a new one: the one the proxy ends
      proxy.arm(1);
      const settled = await Promise.allSettled([
        executor.query('select pg_sleep(0.2), $1::int as n', [1]),
        executor.query('select $1::int as n', [2]),
      ]);
      expect(proxy.ended).toBe(1);
      expect(settled.map((s) => s.status).sort()).toEqual(['fulfilled', 'rejected']);
      const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
      expect(String(failed?.reason)).toMatch(/not queryable|terminat/i);
      await expect(executor.query('select $1::int as n', [3])).resolves.toMatchObject({
        rows: [{ n: 3 }],
      });
      await expect(dataSource.query('select 4 as n')).resolves.toEqual([{ n: 4 }]);
    } finally {
      await dataSource.destroy();
    }
  });

  it('postgresBackend over a url: a kept connection ended as the boot opens it, and the boot goes on', async () => {
    const db = await createTestDatabase();
    const proxied = await startFatalAfterReadyProxy(db.url);
    try {
      // the boot's own session passes; the first connection the pool keeps is ended as it is handed out
      proxied.arm(1, 1);
      const backend = await postgresBackend({ url: proxied.url });
      try {
        expect(proxied.ended).toBe(1);
        await expect(backend.executor.query('select $1::int as n', [5])).resolves.toMatchObject({
          rows: [{ n: 5 }],
        });
      } finally {
        await backend.close();
      }
    } finally {
      await proxied.close();
      await db.drop();
    }
  });

  it('guards a pool once, guards a connection opened before it at its next checkout, and leaves a non-emitter alone', async () => {
    const pool = new Pool({ connectionString: testDatabaseUrl(), max: 1 });
    try {
      (await pool.connect()).release();
      guardPoolClients(pool);
      guardPoolClients(pool);
      expect(pool.listenerCount('acquire')).toBe(1);
      const client = await pool.connect();
      // checked out: pg-pool's idle listener is off, the guard's is on
      expect(client.listenerCount('error')).toBe(1);
      client.release();
      const again = await pool.connect();
      expect(again).toBe(client);
      expect(again.listenerCount('error')).toBe(1);
      again.release();
    } finally {
      await pool.end();
    }
    expect(() => guardPoolClients(undefined)).not.toThrow();
    expect(() => guardPoolClients({ on: 'not a function' })).not.toThrow();
    const emitter = new EventEmitter();
    guardPoolClients(emitter);
    expect(emitter.listenerCount('acquire')).toBe(1);
  });
});
