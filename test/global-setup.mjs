/**
 * Jest global setup: one real PostgreSQL and one real `redis-server` for the whole run, handed to the test files
 * through `process.env.JOBS_TEST_DATABASE_URL` and `process.env.JOBS_TEST_REDIS_URL` (jest workers inherit the
 * environment of this process).
 *
 * When `JOBS_TEST_DATABASE_URL` or `DATABASE_URL` is already set, that server is used and nothing is started; likewise
 * `JOBS_TEST_REDIS_URL`. The handles stay on `globalThis` for `global-teardown.mjs`.
 *
 * It also jails every Node process started under the run (see `jailChildren`): `NODE_OPTIONS` requires the connect
 * jail, and `JOBS_TEST_JAIL_DIR` names a fresh directory for the jest workers' refusal logs.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startThrowawayPostgres } from '../scripts/throwaway-postgres.mjs';
import { startThrowawayRedis } from '../scripts/throwaway-redis.mjs';
import { sweepStaleTempDirs } from '../scripts/stale-temp-dirs.mjs';

const require = createRequire(import.meta.url);

export default async function globalSetup() {
  jailChildren();
  try {
    await startPostgres();
    await startRedis();
  } catch (error) {
    // no teardown runs after a failed setup: stop and remove what was started here
    await globalThis.__JOBS_TEST_PG__?.stop();
    rmSync(globalThis.__JOBS_TEST_JAIL_DIR__, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Every Node process the run starts (jest's workers first) loads the connect jail (`connect-jail.ts`) and logs what it
 * refused: the jail is compiled once here, by the installed @swc/core, into a preload that installs itself in logged
 * mode, kept in a fresh directory with the workers' logs; `NODE_OPTIONS` requires it. A process started with an
 * environment of its own is not jailed.
 */
function jailChildren() {
  sweepStaleTempDirs('ultimat3-jail'); // what a run cut short before its teardown left
  const dir = mkdtempSync(join(tmpdir(), `ultimat3-jail-${process.pid}-`));
  const source = fileURLToPath(new URL('connect-jail.ts', import.meta.url));
  const { code } = require('@swc/core').transformSync(readFileSync(source, 'utf8'), {
    filename: source,
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
    module: { type: 'commonjs' },
  });
  const preload = join(dir, 'connect-jail-preload.js');
  writeFileSync(preload, `${code}\nmodule.exports.installConnectJail({ logged: true });\n`);
  globalThis.__JOBS_TEST_JAIL_DIR__ = dir;
  process.env.JOBS_TEST_JAIL_DIR = dir;
  process.env.NODE_OPTIONS =
    `${process.env.NODE_OPTIONS ?? ''} --require ${JSON.stringify(preload)}`.trim();
}

/** A throwaway PostgreSQL unless `JOBS_TEST_DATABASE_URL` or `DATABASE_URL` names one. */
async function startPostgres() {
  const given = process.env.JOBS_TEST_DATABASE_URL || process.env.DATABASE_URL;
  if (given) {
    process.env.JOBS_TEST_DATABASE_URL = given;
    return;
  }
  const pg = await startThrowawayPostgres({
    name: 'jobs-test-pg',
    password: 'jobs-test',
    // a throwaway cluster: durability buys nothing here, and fsync is most of a commit's cost. The chaos tier opens
    // many connections at once (scenario 6: 4 racer processes x 16 beside 4 transaction racers with their pools and
    // the spec's own), more than the default 100 with a previous file's pools still closing.
    flags: ['fsync=off', 'synchronous_commit=off', 'full_page_writes=off', 'max_connections=400'],
    hint: ' (set JOBS_TEST_DATABASE_URL to use a running server)',
  });
  globalThis.__JOBS_TEST_PG__ = pg;
  process.env.JOBS_TEST_DATABASE_URL = pg.url;
}

/**
 * A throwaway `redis-server` (no persistence) unless `JOBS_TEST_REDIS_URL` names one. Without `redis-server` on PATH
 * nothing is started and the variable stays unset: the Redis driver's specs then fail saying so, and every other spec
 * runs as before (`.ci/run` installs `redis-server`).
 */
async function startRedis() {
  if (process.env.JOBS_TEST_REDIS_URL) return;
  try {
    const redis = await startThrowawayRedis({
      name: 'jobs-test-redis',
      hint: ' (set JOBS_TEST_REDIS_URL to use a running server)',
    });
    globalThis.__JOBS_TEST_REDIS__ = redis;
    process.env.JOBS_TEST_REDIS_URL = redis.url;
  } catch (error) {
    if (!String(error).includes('ENOENT')) throw error;
  }
}
