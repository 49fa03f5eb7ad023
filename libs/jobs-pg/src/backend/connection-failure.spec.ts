import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { Client, Pool } from 'pg';
import {
  DriverConnectionLostError,
  DriverUnavailableError,
  errorCodeOf,
  JobsError,
} from '@ultimat3/jobs';
import { freePort } from '../../../../scripts/free-port.mjs';
import { silentHost } from '../../../../test/silent-host';
import { testDatabaseUrl } from '../../../../test/test-env';
import { until } from '../../../../test/until';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { request } from '../../test/requests';
import { withDatabase } from '../../test/test-database';
import { postgresJobDriver } from '../driver/pg-driver';
import { pgPoolExecutor } from '../executor/pg-pool-executor';
import { bootFailureReason, enqueueFailure, messageOf } from './connection-failure';
import { postgresBackend } from './pg-backend';

/** What `pending` rejected with, or 'resolved'. */
async function thrown(pending: Promise<unknown>): Promise<unknown> {
  return pending.then(
    () => 'resolved',
    (error: unknown) => error,
  );
}

/** `url` as `user` with `password` (none when undefined). */
function as(url: string, user: string, password: string | undefined): string {
  const next = new URL(url);
  next.username = user;
  next.password = password ?? '';
  return next.toString();
}

/** What an enqueue through a pool over `url` threw. */
async function enqueueOver(url: string): Promise<unknown> {
  const pool = new Pool({ connectionString: url, connectionTimeoutMillis: 2_000 });
  pool.on('error', () => undefined);
  try {
    return await thrown(postgresJobDriver({ executor: pgPoolExecutor(pool) }).enqueue(request()));
  } finally {
    await pool.end();
  }
}

/** The boot's `meta.reason` over `url`, which must fail `X_DRIVER_UNAVAILABLE`. */
async function bootReason(url: string, migrate = true): Promise<unknown> {
  const error = await thrown(postgresBackend({ url }, { connectTimeoutMs: 2_000, migrate }));
  expect(error).toBeInstanceOf(JobsError);
  expect(errorCodeOf(error)).toBe('X_DRIVER_UNAVAILABLE');
  return (error as JobsError).meta?.reason;
}

describe('a connect refused by the server: the enqueue certainly not written, the boot saying why', () => {
  const db = pgJobsSpec();
  const suffix = randomBytes(4).toString('hex');
  const roles = {
    nologin: `jobs_nologin_${suffix}`,
    full: `jobs_full_${suffix}`,
    reader: `jobs_reader_${suffix}`,
  };
  let admin: Client;

  beforeAll(async () => {
    admin = new Client({ connectionString: testDatabaseUrl() });
    await admin.connect();
    await admin.query(`create role ${roles.nologin} nologin password 'pw'`);
    await admin.query(`create role ${roles.full} login connection limit 0 password 'pw'`);
    await admin.query(`create role ${roles.reader} login password 'pw'`);
  });
  afterAll(async () => {
    for (const role of Object.values(roles)) {
      await admin.query(
        `select pg_terminate_backend(pid) from pg_stat_activity where usename = $1`,
        [role],
      );
      await admin.query(`drop role if exists ${role}`);
    }
    await admin.end();
  });

  it.each([
    [
      'an unknown database (3D000)',
      (url: string) => withDatabase(url, `${db.name}_missing`),
      '3D000',
    ],
    ['a wrong password (28P01)', (url: string) => as(url, 'postgres', 'wrong'), '28P01'],
    [
      'a role not permitted to log in (28000)',
      (url: string) => as(url, roles.nologin, 'pw'),
      '28000',
    ],
    ['a role at its connection limit (53300)', (url: string) => as(url, roles.full, 'pw'), '53300'],
  ])('%s', async (_, change, code) => {
    const failure = await enqueueOver(change(db.url));
    expect(failure).toBeInstanceOf(DriverUnavailableError);
    expect(errorCodeOf((failure as JobsError).cause)).toBe(code);
  });

  it('boots saying auth for a role that may not log in, and for a URL with no password', async () => {
    expect(await bootReason(as(db.url, roles.nologin, 'pw'))).toBe('auth');
    expect(await bootReason(as(db.url, 'postgres', undefined))).toBe('auth');
  });

  it('told not to migrate, a role that may not read the tables fails the boot as other, not as a migration', async () => {
    expect(await bootReason(as(db.url, roles.reader, 'pw'), false)).toBe('other');
  });

  it('an unknown host: unknown-host at boot, not written at enqueue', async () => {
    const url = new URL(db.url);
    url.hostname = 'jobs-nowhere.invalid';
    expect(await bootReason(url.toString())).toBe('unknown-host');
    expect(await enqueueOver(url.toString())).toBeInstanceOf(DriverUnavailableError);
  });
});

describe('an enqueue that cannot be sent', () => {
  const db = pgJobsSpec();

  it('through a backend already closed', async () => {
    const backend = await postgresBackend({ url: db.url });
    await backend.close();
    expect(await thrown(backend.driver.enqueue(request()))).toBeInstanceOf(DriverUnavailableError);
  });

  it('to a host that never answers, past the pool’s connect timeout', async () => {
    const host = await silentHost();
    const pool = new Pool({
      connectionString: `postgres://u:p@127.0.0.1:${host.port}/d`,
      connectionTimeoutMillis: 200,
    });
    try {
      const failure = await thrown(
        postgresJobDriver({ executor: pgPoolExecutor(pool) }).enqueue(request()),
      );
      expect(failure).toBeInstanceOf(DriverUnavailableError);
    } finally {
      await pool.end();
      await host.stop();
    }
  });

  it('past the pool’s connect timeout while every connection of the pool is taken', async () => {
    const pool = new Pool({ connectionString: db.url, max: 1, connectionTimeoutMillis: 200 });
    const taken = await pool.connect();
    try {
      const failure = await thrown(
        postgresJobDriver({ executor: pgPoolExecutor(pool) }).enqueue(request()),
      );
      expect(failure).toBeInstanceOf(DriverUnavailableError);
      expect(String(failure)).toContain('timeout exceeded when trying to connect');
    } finally {
      taken.release();
      await pool.end();
    }
  });

  it('answers a statement’s own failure as thrown (here: no jobs tables, 42P01), uncoded', async () => {
    const driver = postgresJobDriver({ executor: db.executor, schema: 'jobs_nowhere' });
    expect(errorCodeOf(await thrown(driver.enqueue(request())))).toBe('42P01');
  });

  it('to a host refused on every address it resolves to: the refusal is named, not lost in an AggregateError', async () => {
    const port = await freePort();
    // a dual-stack name refused on both its addresses: Node's own AggregateError, its message empty
    const refused = await new Promise<Error>((resolve) => {
      const socket = connect({
        host: 'dual.test',
        port,
        autoSelectFamily: true,
        lookup: (_host, _options, answer) =>
          answer(null, [
            { address: '127.0.0.1', family: 4 },
            { address: '127.0.0.2', family: 4 },
          ]),
      });
      socket.on('error', resolve);
    });
    expect(refused).toMatchObject({ message: '', errors: [expect.anything(), expect.anything()] });
    expect(bootFailureReason(refused)).toBe('refused');
    expect(messageOf(refused)).toBe(`connect ECONNREFUSED 127.0.0.1:${port}`);
    const failure = enqueueFailure(refused);
    expect(failure).toBeInstanceOf(DriverUnavailableError);
    expect(String(failure)).toContain(`ECONNREFUSED 127.0.0.1:${port}`);
  });
});

describe('an enqueue whose session ends while it is on the wire', () => {
  const db = pgJobsSpec();

  it('is DriverConnectionLostError: the row may or may not have been written', async () => {
    const backend = await postgresBackend({ url: db.url, poolSize: 1 });
    const holder = new Client({ connectionString: db.url });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query('lock table x_jobs in access exclusive mode');
      const enqueue = thrown(backend.driver.enqueue(request()));
      let pid = 0;
      await until(async () => {
        const { rows } = await db.pool.query<{ pid: number }>(
          `select pid from pg_stat_activity where application_name = 'ultimat3-jobs'
             and datname = current_database() and wait_event_type = 'Lock'`,
        );
        pid = rows[0]?.pid ?? 0;
        return pid !== 0;
      });
      await db.pool.query('select pg_terminate_backend($1)', [pid]);
      const failure = await enqueue;
      expect(failure).toBeInstanceOf(DriverConnectionLostError);
      expect(errorCodeOf(failure)).toBe('X_DRIVER_UNAVAILABLE');
    } finally {
      await holder.end();
      await backend.close();
    }
  });
});
