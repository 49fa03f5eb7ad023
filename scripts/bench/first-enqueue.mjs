#!/usr/bin/env node
/**
 * A fresh process's boot and its first enqueues: what an app meets right after a deploy. Each round forks one process
 * per checkout on a fresh, migrated database; the process opens `postgresBackend({ url })` (timed: the boot), then
 * awaits five `handle.enqueue()` calls one after another (each timed). No worker runs, so no row is handed off.
 * `BENCH_SOURCE=dataSource`: the process initialises a TypeORM `DataSource` first (untimed) and boots
 * `postgresBackend({ dataSource })` over it instead.
 *
 * `npm run build && node scripts/bench/first-enqueue.mjs [checkout ...]` — each argument is a checkout whose
 * `libs/*\/dist` is built (default: this one), run interleaved, `BENCH_ROUNDS` rounds (default 4). Prints each process
 * and the medians per checkout. DATABASE_URL as for `npm run bench`, else an embedded PostgreSQL.
 */
import { fork } from 'node:child_process';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startPostgres } from './embedded-pg.mjs';
import { median, pg, ROOT, withDatabase } from './lib.mjs';

const HERE = fileURLToPath(import.meta.url);

if (process.argv[2] === 'child') {
  const [, , , checkout, url] = process.argv;
  const require = createRequire(join(checkout, 'package.json'));
  const jobs = require(join(checkout, 'libs', 'jobs', 'dist', 'index.js'));
  const jobsPg = require(join(checkout, 'libs', 'jobs-pg', 'dist', 'index.js'));
  let dataSource;
  if (process.env.BENCH_SOURCE === 'dataSource') {
    const { DataSource } = require('typeorm');
    dataSource = new DataSource({ type: 'postgres', url });
    await dataSource.initialize();
  }
  const source = dataSource ? { dataSource } : { url };
  const started = performance.now();
  const backend = await jobsPg.postgresBackend(source, { migrate: false });
  const boot = performance.now() - started;
  jobs.setJobsFacade(jobs.directJobsFacade({ driver: backend.driver }));
  const handle = jobs.job({
    name: 'first.enqueue',
    queue: 'first',
    input: jobs.t.object({ n: jobs.t.number }),
    idempotencyKey: ({ n }) => `n:${n}`,
    tenant: 'none',
    run: () => undefined,
  });
  const calls = [];
  for (let n = 0; n < 5; n++) {
    const at = performance.now();
    await handle.enqueue({ n });
    calls.push(performance.now() - at);
  }
  await backend.close();
  await dataSource?.destroy();
  process.send({ boot, calls });
} else {
  const checkouts = (process.argv.length > 2 ? process.argv.slice(2) : [ROOT]).map((c) =>
    resolve(c),
  );
  const rounds = Number(process.env.BENCH_ROUNDS ?? 4);
  const server = await startPostgres({ log: (line) => console.log(line) });
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  const jobsPg = (await import('./lib.mjs')).jobsPg;
  const seen = new Map(checkouts.map((c) => [c, { boot: [], first: [], later: [] }]));
  const fmt = (ms) => ms.toFixed(1);
  let made = 0;
  for (let round = 0; round < rounds; round++) {
    for (const checkout of checkouts) {
      const name = `first_enqueue_${process.pid}_${made++}`;
      await admin.query(`create database ${name}`);
      const url = withDatabase(server.url, name);
      const migrating = await jobsPg.postgresBackend({ url });
      await migrating.close();
      const child = fork(HERE, ['child', checkout, url]);
      const answer = await new Promise((done, fail) => {
        child.once('message', done);
        child.once('exit', (code) => fail(new Error(`the child exited with ${code}`)));
      });
      await new Promise((done) => child.once('exit', done));
      await admin.query(`drop database ${name} with (force)`);
      const s = seen.get(checkout);
      s.boot.push(answer.boot);
      s.first.push(answer.calls[0]);
      s.later.push(median(answer.calls.slice(1)));
      console.log(
        `${checkout}: boot ${fmt(answer.boot)} ms, enqueue() ${answer.calls.map(fmt).join(' / ')} ms`,
      );
    }
  }
  console.log('\nmedians: boot / first enqueue() / the next four');
  for (const [checkout, s] of seen)
    console.log(
      `  ${checkout}: ${fmt(median(s.boot))} / ${fmt(median(s.first))} / ${fmt(median(s.later))} ms`,
    );
  await admin.end();
  await server.stop();
}
