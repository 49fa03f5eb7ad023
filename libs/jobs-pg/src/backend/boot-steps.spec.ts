import { connect, createServer, type Socket } from 'node:net';
import { Client, Pool } from 'pg';
import { errorCodeOf, JobsError } from '@ultimat3/jobs';
import { partitionHop, type PartitionHop } from '../../../../test/partition-hop';
import { until } from '../../../../test/until';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { bootThroughHop, HOP_BOOT_TIMEOUT_MS } from '../../test/boot-through-hop';
import { pgPoolExecutor } from '../executor/pg-pool-executor';
import { bootError } from '../../test/boot-error';
import { postgresBackend } from './pg-backend';

/** How many complete ReadyForQuery ('Z') messages `buffer` holds, read from its start. */
function readiesIn(buffer: Buffer): number {
  let at = 0;
  let readies = 0;
  while (at + 5 <= buffer.length) {
    const length = buffer.readInt32BE(at + 1);
    if (at + 1 + length > buffer.length) break;
    if (buffer[at] === 0x5a) readies++;
    at += 1 + length;
  }
  return readies;
}

/** The lock every installer takes first (see install-script.ts). */
const MIGRATION_LOCK = `select pg_advisory_lock(hashtextextended('ultimat3-jobs:migrate', 0))`;

describe('the boot session past its opening', () => {
  const db = pgJobsSpec({ migrate: false });

  /** The pid of the boot's session once it waits on a lock, as the server shows it. */
  const waitingBoot = async (): Promise<number> => {
    let pid = 0;
    await until(async () => {
      const { rows } = await db.pool.query<{ pid: number }>(
        `select pid from pg_stat_activity where application_name = 'ultimat3-jobs-boot'
           and datname = current_database() and wait_event_type = 'Lock'`,
      );
      pid = rows[0]?.pid ?? 0;
      return pid !== 0;
    });
    return pid;
  };

  for (const [migrate, reason] of [
    [true, 'migrate-timeout'],
    [false, 'timeout'],
  ] as const) {
    it(`a server silent once the settings are answered fails the boot as ${reason}, bounded (migrate: ${migrate})`, async () => {
      // the opening's ReadyForQuery, then the settings' one: everything after goes unanswered
      const hop: PartitionHop = await partitionHop(Number(new URL(db.url).port), {
        cutAfter: (fromServer) => readiesIn(fromServer) >= 2,
      });
      try {
        const { outcome: error, startedAt } = await bootThroughHop(db.url, hop.port, migrate);
        expect(error).toBeInstanceOf(JobsError);
        expect((error as JobsError).meta).toMatchObject({ reason });
        // the step's own bound and the grace past it, not a connect's failure
        expect(Date.now() - startedAt).toBeGreaterThanOrEqual(HOP_BOOT_TIMEOUT_MS + 950);
        expect(hop.wasCut()).toBe(true);
        await until(() => hop.ended() === 1);
      } finally {
        await hop.stop();
      }
    });
  }

  it('a migration waiting on the lock is its named boot session, given up by the server’s lock_timeout', async () => {
    const holder = new Client({ connectionString: db.url });
    await holder.connect();
    try {
      await holder.query(MIGRATION_LOCK);
      const booting = bootError(postgresBackend({ url: db.url }, { connectTimeoutMs: 1_500 }));
      expect(await waitingBoot()).toBeGreaterThan(0);
      const error = await booting;
      expect(error.meta).toMatchObject({ reason: 'migrate-timeout' });
      // the server's answer (55P03), within the step's timeout: its backend is no longer queued on the lock
      expect(errorCodeOf(error.cause)).toBe('55P03');
    } finally {
      await holder.end();
    }
  });

  it('a boot session ended under its migration is the database out of reach, not a failed migration', async () => {
    const holder = new Client({ connectionString: db.url });
    await holder.connect();
    try {
      await holder.query(MIGRATION_LOCK);
      const booting = bootError(postgresBackend({ url: db.url }, { connectTimeoutMs: 10_000 }));
      const pid = await waitingBoot();
      await db.pool.query('select pg_terminate_backend($1)', [pid]);
      const error = await booting;
      expect(error.meta).toMatchObject({ reason: 'other' });
      expect(error.message).toMatch(/terminat/i);
    } finally {
      await holder.end();
    }
  });
});

/**
 * A hop in front of the server at `upstreamPort` that passes the opening and the settings (two ReadyForQuery) and then
 * resets the client's connection: a session dropped under a step by the network (ECONNRESET), not by the server.
 */
async function resettingHop(upstreamPort: number): Promise<{ port: number; stop(): void }> {
  const sockets: Socket[] = [];
  const server = createServer((client) => {
    const upstream = connect({ port: upstreamPort, host: '127.0.0.1' });
    sockets.push(client, upstream);
    client.on('error', () => undefined);
    upstream.on('error', () => undefined);
    client.on('data', (chunk: Buffer) => upstream.write(chunk));
    let fromServer = Buffer.alloc(0);
    upstream.on('data', (chunk: Buffer) => {
      client.write(chunk);
      fromServer = Buffer.concat([fromServer, chunk]);
      if (readiesIn(fromServer) >= 2) {
        client.resetAndDestroy();
        upstream.destroy();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    port,
    stop() {
      sockets.forEach((socket) => socket.destroy());
      server.close();
    },
  };
}

describe('a boot session reset by the network under its step', () => {
  const db = pgJobsSpec({ migrate: false });

  it('fails the boot coded, the reset heard by the boot (no uncaught error)', async () => {
    const hop = await resettingHop(Number(new URL(db.url).port));
    try {
      const url = new URL(db.url);
      url.port = String(hop.port);
      const error = await bootError(
        postgresBackend({ url: url.toString() }, { connectTimeoutMs: 2_000 }),
      );
      expect(errorCodeOf(error.cause)).toBe('ECONNRESET');
    } finally {
      hop.stop();
    }
  });
});

describe('a boot over a database that refuses every write', () => {
  const db = pgJobsSpec({ migrate: false });
  beforeAll(async () => {
    await db.pool.query(`alter database ${db.name} set default_transaction_read_only = on`);
  });

  it('over a url: migrate-failed, naming the grant to give', async () => {
    const error = await bootError(postgresBackend({ url: db.url }, { connectTimeoutMs: 5_000 }));
    expect(error.meta).toMatchObject({ reason: 'migrate-failed', target: { database: db.name } });
    expect(error.fix).toContain('Grant user "postgres"');
    expect(errorCodeOf(error.cause)).toBe('25006');
  });

  it('over an executor the app owns: migrate-failed too', async () => {
    const pool = new Pool({ connectionString: db.url, max: 2 });
    try {
      const error = await bootError(
        postgresBackend({ executor: pgPoolExecutor(pool) }, { connectTimeoutMs: 5_000 }),
      );
      expect(error.meta).toMatchObject({ reason: 'migrate-failed' });
      expect(errorCodeOf(error.cause)).toBe('25006');
    } finally {
      await pool.end();
    }
  });
});
