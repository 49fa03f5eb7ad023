#!/usr/bin/env node
// Runs the built example end to end as a deploy runs it: TWO processes on one PostgreSQL. The worker
// (apps/worker: roles worker + scheduler + relay) and the HTTP app (apps/example: role web, it only enqueues). It starts
// the database once — DATABASE_URL when set, else the embedded PostgreSQL under .data/pg — and hands both children the
// same DATABASE_URL; onboards one org over HTTP, waits until the worker parked the job on its three-day sleep; publishes
// a post (the post and its notifySubscribers job commit in one transaction, the worker's relay publishes the job, a
// worker runs it) and a failing one (?fail=1: no post, no job); triggers the posts.slug backfill (the web app ran the
// migration it requires at boot; the worker sweeps) and prints the rows it swept; prints what happened and GET /tasks,
// then stops both with SIGTERM (the drain path a deploy takes) and the database last.
// `JOBS_DRIVER=redis npm run example` runs the same on Redis: the jobs in Redis (REDIS_URL when set, else a throwaway
// redis-server started here and stopped at the end), the posts and the outbox staging still in PostgreSQL, the relay
// publishing from there onto Redis.
// `npm run example` builds first; run it directly only after `npm run build`.
'use strict';

const { existsSync } = require('node:fs');
const path = require('node:path');
const { alive, startChild, stop } = require('./example/children');
const { freePort, json, poll } = require('./example/http');
const { sweepSlugs } = require('./example/backfill-scene');
const { onboard, printTasks } = require('./example/onboard-scene');
const { publishPosts } = require('./example/outbox-scene');
const { exampleRedis, jobsDriver } = require('./example/stores');

const ROOT = path.join(__dirname, '..');
const WORKER_MAIN = path.join(ROOT, 'apps', 'worker', 'dist', 'main.js');
const APP_MAIN = path.join(ROOT, 'apps', 'example', 'dist', 'main.js');
const DATABASE = path.join(ROOT, 'libs', 'example-jobs', 'dist', 'embedded-postgres.js');
const START_TIMEOUT_MS = 30_000;

/** The database (and, under JOBS_DRIVER=redis, the Redis) both children are handed, and their environment. */
async function openStores() {
  for (const file of [WORKER_MAIN, APP_MAIN, DATABASE]) {
    if (!existsSync(file)) {
      throw new Error(`${path.relative(ROOT, file)} is missing: run \`npm run build\` first.`);
    }
  }
  const driver = jobsDriver();
  const redis = driver === 'redis' ? await exampleRedis() : undefined;
  const { exampleDatabase } = require(DATABASE);
  const database = await exampleDatabase({ log: (message) => console.log(message) }).catch(
    async (error) => {
      await redis?.stop();
      throw error;
    },
  );
  console.log(`PostgreSQL: ${database.source} (${database.url.replace(/:[^:@/]*@/, ':***@')})`);
  const env = { ...process.env, DATABASE_URL: database.url, NO_COLOR: '1', JOBS_DRIVER: driver };
  if (redis !== undefined) {
    env.REDIS_URL = redis.url;
    console.log(
      `Redis: ${redis.source} (${redis.url.replace(/\/\/[^@/]*@/, '//***@')}) — the jobs live here; the posts and the outbox stay in PostgreSQL.`,
    );
  }
  return { database, redis, env, store: redis === undefined ? 'PostgreSQL' : 'Redis' };
}

/** Stops the database, then the throwaway Redis, saying so for what this run started. */
async function closeStores({ database, redis }) {
  await database.stop();
  if (database.source === 'embedded: started') console.log('Stopped the embedded PostgreSQL.');
  if (redis !== undefined) {
    await redis.stop();
    if (redis.source === 'throwaway: started') console.log('Stopped the throwaway redis-server.');
  }
}

/** Starts the worker and the app (each pushed onto `children` as it starts) and waits until both are up. */
async function startBoth(env, ports, children) {
  console.log(
    `\nStarting the worker (${path.relative(ROOT, WORKER_MAIN)}: roles worker, scheduler, relay)…`,
  );
  const worker = startChild('worker', WORKER_MAIN, { ...env, HEALTH_PORT: String(ports.health) });
  children.push(['worker', worker]);
  console.log(
    `Starting the example app (${path.relative(ROOT, APP_MAIN)}: role web) on port ${ports.app}…`,
  );
  const app = startChild('app', APP_MAIN, { ...env, PORT: String(ports.app) });
  children.push(['example app', app]);

  await poll('the worker to start', START_TIMEOUT_MS, async () => {
    alive(worker, 'worker');
    return worker.output.includes('worker started') ? true : undefined;
  });
  await poll('the app to listen', START_TIMEOUT_MS, async () => {
    alive(app, 'example app');
    return json(`http://127.0.0.1:${ports.app}/jobs`);
  });
}

async function main() {
  const stores = await openStores();
  const ports = {
    app: await freePort(process.env.PORT),
    // the worker's probes and metrics (HEALTH_PORT): a free port, so a second checkout or a busy 9464 cannot fail it
    health: await freePort(process.env.HEALTH_PORT),
  };
  const base = `http://127.0.0.1:${ports.app}`;
  const children = [];
  let clean = true;

  try {
    await startBoth(stores.env, ports, children);
    const orgId = await onboard(base, stores.store);
    await publishPosts(base, orgId, stores.store);
    await sweepSlugs(base, orgId);
    await printTasks(base);
  } finally {
    console.log('');
    for (const [name, state] of children.reverse()) clean = (await stop(state, name)) && clean;
    await closeStores(stores);
  }
  if (!clean) throw new Error('a process did not exit cleanly (code 0) after SIGTERM');
}

main().catch((error) => {
  console.error(`\nrun-example failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
