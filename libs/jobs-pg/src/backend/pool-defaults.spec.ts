import { Pool } from 'pg';
import { errorCodeOf } from '@ultimat3/jobs';
import { freePort } from '../../../../scripts/free-port.mjs';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { resolveConnectTimeout } from './boot-check';
import { openKept, poolOptions, wakeClientOptions } from './pool-options';

describe('the figures a URL backend dials with', () => {
  it('keeps an idle connection above the kept ones a minute (not pg’s 10 s), probed after 10 s idle', () => {
    expect(poolOptions('postgres://h/d', {}, 5_000)).toMatchObject({
      idleTimeoutMillis: 60_000,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
  });

  it('opens a wake’s LISTEN session named, bounded by connectTimeoutMs, kept alive by TCP probes', () => {
    expect(wakeClientOptions('postgres://h/d', 1_234)).toEqual({
      connectionString: 'postgres://h/d',
      application_name: 'ultimat3-jobs-wake',
      connectionTimeoutMillis: 1_234,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
  });

  it('waits 10 s a step when no connectTimeoutMs is given, and takes any positive one up to a timer’s longest', () => {
    expect(resolveConnectTimeout(undefined)).toBe(10_000);
    expect(resolveConnectTimeout(0.5)).toBe(0.5);
    expect(resolveConnectTimeout(2_147_483_647)).toBe(2_147_483_647);
  });

  it.each([[Number.NaN], [Number.POSITIVE_INFINITY], ['5000'], [-1]])(
    'refuses connectTimeoutMs %p with X_INVARIANT',
    (ms) => {
      let thrown: unknown;
      try {
        resolveConnectTimeout(ms);
      } catch (error) {
        thrown = error;
      }
      expect(errorCodeOf(thrown)).toBe('X_INVARIANT');
    },
  );
});

describe('openKept', () => {
  const db = pgJobsSpec({ migrate: false });

  it('with no warm to send, hands its connections back idle, open', async () => {
    const pool = new Pool({ connectionString: db.url, max: 3 });
    try {
      await openKept(pool, 2);
      expect({ total: pool.totalCount, idle: pool.idleCount }).toEqual({ total: 2, idle: 2 });
    } finally {
      await pool.end();
    }
  });

  it('waits on a warm up to 10 s when no timeout is given, and lets go of its error listener', async () => {
    const pool = new Pool({ connectionString: db.url, max: 1 });
    const fresh = new Pool({ connectionString: db.url, max: 1 });
    try {
      await openKept(pool, 1, 'select pg_sleep(0.2)');
      expect(pool.totalCount).toBe(1);
      const kept = await pool.connect();
      const other = await fresh.connect();
      const listeners = [kept.listenerCount('error'), other.listenerCount('error')];
      kept.release();
      other.release();
      // as many listeners as on a connection openKept never held
      expect(listeners[0]).toBe(listeners[1]);
    } finally {
      await pool.end();
      await fresh.end();
    }
  });

  it('answers (it is not the boot’s) when its connections cannot be opened, and holds nothing', async () => {
    const pool = new Pool({
      connectionString: `postgres://nobody@127.0.0.1:${await freePort()}/none`,
      max: 2,
    });
    try {
      await expect(openKept(pool, 2, 'select 1')).resolves.toBeUndefined();
      expect(pool.totalCount).toBe(0);
    } finally {
      await pool.end();
    }
  });
});
