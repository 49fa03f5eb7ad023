import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

/**
 * One test file's connection to the throwaway `redis-server` the jest global setup started, and a key namespace of
 * its own: each `prefix()` is a fresh deployment name under the file's random stem, so files (and tests) running in
 * parallel never see each other's keys. `drop()` deletes every key of the file's prefixes and closes the client.
 */
export interface TestRedis {
  readonly client: Redis;
  /** A fresh deployment name (a new hash tag): empty storage for one driver. */
  prefix(): string;
  drop(): Promise<void>;
}

/** The server's URL, or a failure that says why there is none. */
export function testRedisUrl(): string {
  const url = process.env.JOBS_TEST_REDIS_URL;
  if (!url) {
    throw new Error(
      'JOBS_TEST_REDIS_URL is unset: the jest global setup starts redis-server when it is on PATH (apt-get install redis-server), or set the variable to a running server.',
    );
  }
  return url;
}

/** Connects to the test server; call once per file (in `beforeAll`). */
export function createTestRedis(): TestRedis {
  const client = new Redis(testRedisUrl(), { lazyConnect: false, maxRetriesPerRequest: 3 });
  const stem = `t-${randomBytes(6).toString('hex')}`;
  let n = 0;
  return {
    client,
    prefix: () => `${stem}-${n++}`,
    async drop() {
      await deleteKeysMatching(client, `{${stem}-*`);
      await client.quit();
    },
  };
}

/** Deletes every key of `client`'s server that matches `pattern`, a SCAN page at a time. */
export async function deleteKeysMatching(client: Redis, pattern: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    if (keys.length > 0) await client.del(...keys);
    cursor = next;
  } while (cursor !== '0');
}

/** {@link deleteKeysMatching} over a connection of its own to `url`, closed after. */
export async function deleteRedisKeys(url: string, pattern: string): Promise<void> {
  const client = new Redis(url, { maxRetriesPerRequest: 3 });
  try {
    await deleteKeysMatching(client, pattern);
  } finally {
    await client.quit();
  }
}
