/**
 * Backends on storage of a spec's own, on the run's test servers: a fresh schema of the test PostgreSQL database, a
 * fresh key prefix of the test redis-server. For specs that drive a backend the way an operator's tool reaches it.
 */
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import type { Clock } from '../src/util/clock';
import type { JobsBackend } from '../src/driver/backend';
import { postgresBackend } from '@ultimat3/jobs-pg';
import { redisBackend } from '@ultimat3/jobs-redis';
import { testDatabaseUrl } from '../../../test/test-env';
import { deleteRedisKeys, testRedisUrl } from '../../jobs-redis/test/test-redis';

/** A backend on storage of its own, the `x` flags that reach that storage, and how to remove it. */
export interface ScratchBackend {
  readonly backend: JobsBackend;
  /** `--url` and `--schema` or `--prefix`. */
  readonly flags: readonly string[];
  /** Removes the storage (the backend is the caller's to close first). */
  drop(): Promise<void>;
}

/** The PostgreSQL backend in a fresh schema `<stem>_<random>` (migrated), on the clock given. */
export async function scratchPostgres(stem: string, clock?: Clock): Promise<ScratchBackend> {
  const url = testDatabaseUrl();
  const schema = `${stem}_${randomBytes(5).toString('hex')}`;
  const backend = await postgresBackend(
    { url },
    clock === undefined ? { schema } : { schema, clock },
  );
  return {
    backend,
    flags: ['--url', url, '--schema', schema],
    async drop() {
      const client = new Client({ connectionString: url });
      await client.connect();
      await client.query(`drop schema if exists ${schema} cascade`);
      await client.end();
    },
  };
}

/** The Redis backend under a fresh key prefix `<stem>-<random>`, on the clock given. */
export async function scratchRedis(stem: string, clock?: Clock): Promise<ScratchBackend> {
  const url = testRedisUrl();
  const prefix = `${stem}-${randomBytes(5).toString('hex')}`;
  const backend = await redisBackend(
    clock === undefined ? { url, prefix } : { url, prefix, clock },
  );
  return {
    backend,
    flags: ['--url', url, '--prefix', prefix],
    drop: () => deleteRedisKeys(url, `*${prefix}*`),
  };
}
