/** Jest global teardown: stops the PostgreSQL `global-setup.mjs` started (none when a URL was given). */
export default async function globalTeardown() {
  const pg = globalThis.__JOBS_TEST_PG__;
  globalThis.__JOBS_TEST_PG__ = undefined;
  if (pg) await pg.stop();
}
