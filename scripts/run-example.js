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

const { spawn, spawnSync } = require('node:child_process');
const { randomUUID } = require('node:crypto');
const { existsSync } = require('node:fs');
const { createServer } = require('node:net');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const WORKER_MAIN = path.join(ROOT, 'apps', 'worker', 'dist', 'main.js');
const APP_MAIN = path.join(ROOT, 'apps', 'example', 'dist', 'main.js');
const DATABASE = path.join(ROOT, 'libs', 'example-jobs', 'dist', 'embedded-postgres.js');
const START_TIMEOUT_MS = 30_000;
const RUN_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 30_000;

/** A free loopback port, unless `preset` (an environment variable's value) names one. */
function freePort(preset) {
  if (preset) return Promise.resolve(Number(preset));
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Calls `fn` every 100 ms until it answers something other than undefined, or fails after `timeoutMs`. */
async function poll(what, timeoutMs, fn) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn().catch((error) => {
      if (error && error.fatal) throw error;
      return undefined;
    });
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await pause(100);
  }
}

async function json(url, init) {
  const res = await fetch(url, init);
  const body = await res.json();
  if (!res.ok)
    throw new Error(
      `${init?.method ?? 'GET'} ${url} answered ${res.status}: ${JSON.stringify(body)}`,
    );
  return body;
}

/** A POST with a JSON body: the response's status and parsed body, whatever the status. */
async function postJson(url, body) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

/** Fails the run at once: `poll` rethrows it instead of retrying. */
function fatal(message) {
  return Object.assign(new Error(message), { fatal: true });
}

/** Starts a built app as a child process, its output prefixed with `name`, and tracks whether it still runs. */
function startChild(name, main, env) {
  const child = spawn(process.execPath, [main], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const state = { child, output: '', running: true, exited: undefined };
  const prefix = (chunk) =>
    chunk
      .toString()
      .split('\n')
      .filter((line) => line.length > 0)
      .map((line) => `  ${name.padEnd(6)} │ ${line}\n`)
      .join('');
  const take = (stream) => (chunk) => {
    state.output += chunk.toString();
    stream.write(prefix(chunk));
  };
  child.stdout.on('data', take(process.stdout));
  child.stderr.on('data', take(process.stderr));
  state.exited = new Promise((resolve) =>
    child.once('exit', (code, signal) => {
      state.running = false;
      resolve({ code, signal });
    }),
  );
  return state;
}

/** Fails the wait at once when the child is gone. */
function alive(state, name) {
  if (!state.running) {
    throw Object.assign(new Error(`the ${name} exited during startup (see its output above)`), {
      fatal: true,
    });
  }
}

/** SIGTERM, then wait for the exit (SIGKILL after STOP_TIMEOUT_MS). */
async function stop(state, name) {
  if (state.running) {
    console.log(`Stopping the ${name} with SIGTERM…`);
    state.child.kill('SIGTERM');
  }
  const timer = setTimeout(() => state.child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  const { code, signal } = await state.exited;
  clearTimeout(timer);
  console.log(`The ${name} exited (${signal ?? `code ${code}`}).`);
  return code === 0;
}

/**
 * The transactional outbox: a post and its notifySubscribers job commit together (the worker's relay publishes the
 * job, a worker runs it), and a request that fails after its enqueue leaves neither.
 */
async function publishPosts(base, orgId, store) {
  const posts = `${base}/orgs/${orgId}/posts`;
  const title = 'Hello, subscribers';
  console.log(
    `\nPOST /orgs/${orgId}/posts saves a post and enqueues notifySubscribers in ONE transaction (OutboxInterceptor).`,
  );
  const committedAt = Date.now();
  const published = await postJson(posts, { title });
  if (published.status !== 201) {
    throw new Error(
      `POST ${posts} answered ${published.status}: ${JSON.stringify(published.body)}`,
    );
  }
  const { post, job } = published.body;
  console.log(`  → 201: post ${post.id} "${post.title}", job ${job.id}`);
  console.log(
    `  Committed: the job waits in x_outbox (PostgreSQL) until the relay in the worker process publishes it${store === 'Redis' ? ' onto Redis' : ''}.`,
  );
  const done = await poll('the notifySubscribers job to be done', RUN_TIMEOUT_MS, async () => {
    const current = await json(`${base}/jobs/${job.id}`); // 404 until the relay published it
    if (['failed', 'dead', 'cancelled'].includes(current.state)) {
      throw fatal(`job ${job.id} ended ${current.state}: ${current.lastError}`);
    }
    return current.state === 'done' ? current : undefined;
  });
  const steps = await json(`${base}/jobs/${job.id}/steps`);
  console.log(
    `  Job ${done.id} (${done.name}, tenant ${done.tenantId}) is ${done.state} ${Date.now() - committedAt} ms after the commit (relay wake or poll, then the run):`,
  );
  for (const step of steps) {
    const output = Array.isArray(step.output)
      ? `${step.output.length} subscribers`
      : (step.output?.to ?? JSON.stringify(step.output));
    console.log(`    ✓ ${step.name} → ${output}`);
  }

  console.log(`\nPOST /orgs/${orgId}/posts?fail=1 throws after the same save and enqueue.`);
  const failed = await postJson(`${posts}?fail=1`, { title: 'Never published' });
  const rolledBack = failed.body.rolledBack;
  if (failed.status !== 500 || rolledBack === undefined) {
    throw new Error(
      `POST ${posts}?fail=1 answered ${failed.status}, not the 500 naming what rolled back: ${JSON.stringify(failed.body)}`,
    );
  }
  console.log(`  → ${failed.status}: ${failed.body.message}`);
  const listed = await json(posts);
  if (listed.some((p) => p.id === rolledBack.postId)) {
    throw new Error(`post ${rolledBack.postId} is listed although its request failed`);
  }
  console.log(
    `  GET /orgs/${orgId}/posts → ${listed.length} post(s): ${listed.map((p) => `"${p.title}"`).join(', ')} — no post ${rolledBack.postId}.`,
  );
  const ghost = await fetch(`${base}/jobs/${rolledBack.jobId}`);
  if (ghost.status !== 404) {
    throw new Error(`GET /jobs/${rolledBack.jobId} answered ${ghost.status}, not 404`);
  }
  console.log(
    `  GET /jobs/${rolledBack.jobId} → 404: its outbox row rolled back with the post, so no relay will ever publish it.`,
  );
}

/**
 * The backfill: the web app ran the example's TypeORM migrations at boot (the second adds `posts.slug`, null on every
 * row so far); `POST /backfills/posts.slug` gates the `posts.slug` backfill — that migration applied, no pass running,
 * none completed — and queues it; the worker sweeps the posts in keyset pages. A pass completed by an earlier run
 * answers 409 X_BACKFILL_APPLIED: this run's posts are swept with `force`, into a new ledger row.
 */
async function sweepSlugs(base, orgId) {
  const name = 'posts.slug';
  const url = `${base}/backfills/${name}`;
  console.log(
    `\nPOST /backfills/${name}: the gate (its migration applied, nothing running or completed), then the enqueue.`,
  );
  let triggered = await postJson(url, {});
  if (triggered.status === 409 && triggered.body.code === 'X_BACKFILL_APPLIED') {
    const [previous] = await json(url);
    console.log(
      `  → 409 X_BACKFILL_APPLIED: an earlier run's pass completed (${previous.rows} row(s), ${previous.completedAt}).`,
    );
    console.log(
      '  This run published a post with no slug: again with { force: true }, into a new ledger row.',
    );
    triggered = await postJson(url, { force: true });
  }
  if (triggered.status !== 202) {
    throw new Error(`POST ${url} answered ${triggered.status}: ${JSON.stringify(triggered.body)}`);
  }
  const { job, requires, environment } = triggered.body;
  console.log(
    `  → 202: migration ${requires} applied, environment ${environment}; job ${job.id} queued for the worker.`,
  );
  const done = await poll(`the ${name} pass to complete`, RUN_TIMEOUT_MS, async () => {
    const current = await json(`${base}/jobs/${job.id}`);
    if (['failed', 'dead', 'cancelled'].includes(current.state)) {
      throw fatal(`backfill job ${job.id} ended ${current.state}: ${current.lastError}`);
    }
    return current.state === 'done' ? current : undefined;
  });
  const pass = (await json(url)).find((p) => p.jobId === done.id);
  if (pass === undefined || pass.status !== 'completed') {
    throw new Error(`no completed ledger row for job ${done.id}: ${JSON.stringify(pass)}`);
  }
  console.log(
    `  The worker swept ${pass.rows} row(s) in ${pass.batches} batch(es); ledger row ${pass.status} (run ${pass.runId}).`,
  );
  const posts = await json(`${base}/orgs/${orgId}/posts`);
  if (posts.some((p) => p.slug === null)) {
    throw new Error(`a post still has no slug after the pass: ${JSON.stringify(posts)}`);
  }
  for (const post of posts) console.log(`    ✓ "${post.title}" → slug ${post.slug}`);
}

/** `JOBS_DRIVER`: `postgres` (default) or `redis`. */
function jobsDriver() {
  const driver = process.env.JOBS_DRIVER || 'postgres';
  if (driver !== 'postgres' && driver !== 'redis') {
    throw new Error(`JOBS_DRIVER must be postgres or redis (got "${driver}").`);
  }
  return driver;
}

/**
 * The Redis the jobs run on under JOBS_DRIVER=redis: REDIS_URL when set, else a throwaway redis-server (no
 * persistence, maxmemory-policy noeviction) in a temp directory. Answers `{ url, source, stop }`.
 */
async function exampleRedis() {
  if (process.env.REDIS_URL) {
    return { url: process.env.REDIS_URL, source: 'REDIS_URL', stop: async () => undefined };
  }
  const probe = spawnSync('redis-server', ['--version'], { stdio: 'ignore' });
  if (probe.error) {
    throw new Error(
      'JOBS_DRIVER=redis needs a Redis: redis-server is not installed (not on PATH), and REDIS_URL is unset. ' +
        'Install Redis 7 or later (apt-get install redis-server, brew install redis), or set REDIS_URL to a Redis with maxmemory-policy noeviction.',
    );
  }
  const { startThrowawayRedis } = await import('./throwaway-redis.mjs');
  const server = await startThrowawayRedis({ name: 'jobs-example-redis' });
  return { url: server.url, source: 'throwaway: started', stop: () => server.stop() };
}

async function main() {
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
  const store = redis === undefined ? 'PostgreSQL' : 'Redis';
  const port = await freePort(process.env.PORT);
  // the worker's probes and metrics (HEALTH_PORT): a free port, so a second checkout or a busy 9464 cannot fail it
  const healthPort = await freePort(process.env.HEALTH_PORT);
  const base = `http://127.0.0.1:${port}`;
  const children = [];
  let clean = true;

  try {
    console.log(
      `\nStarting the worker (${path.relative(ROOT, WORKER_MAIN)}: roles worker, scheduler, relay)…`,
    );
    const worker = startChild('worker', WORKER_MAIN, { ...env, HEALTH_PORT: String(healthPort) });
    children.push(['worker', worker]);
    console.log(
      `Starting the example app (${path.relative(ROOT, APP_MAIN)}: role web) on port ${port}…`,
    );
    const app = startChild('app', APP_MAIN, { ...env, PORT: String(port) });
    children.push(['example app', app]);

    await poll('the worker to start', START_TIMEOUT_MS, async () => {
      alive(worker, 'worker');
      return worker.output.includes('worker started') ? true : undefined;
    });
    await poll('the app to listen', START_TIMEOUT_MS, async () => {
      alive(app, 'example app');
      return json(`${base}/jobs`);
    });

    const orgId = randomUUID();
    const queued = await json(`${base}/orgs/${orgId}/onboard`, { method: 'POST' });
    console.log(`\nPOST /orgs/${orgId}/onboard → job ${queued.id} (deduped: ${queued.deduped})`);
    console.log(`The web process only wrote the row; the worker process claims it from ${store}.`);

    const row = await poll('the job to park on its sleep', RUN_TIMEOUT_MS, async () => {
      const current = await json(`${base}/jobs/${queued.id}`);
      return current.state === 'suspended' ? current : undefined;
    });
    const steps = await json(`${base}/jobs/${queued.id}/steps`);

    console.log(`\nJob ${row.id} (${row.name}, tenant ${row.tenantId}) is ${row.state}.`);
    console.log('Completed steps:');
    for (const step of steps) console.log(`  ✓ ${step.name} → ${JSON.stringify(step.output)}`);
    console.log(
      `It resumes at ${new Date(row.runAt).toISOString()} to send the nudge; no process waits for it —`,
    );
    console.log(`the row sleeps in ${store}, and any worker claims it when it is due.`);

    const again = await json(`${base}/orgs/${orgId}/onboard`, { method: 'POST' });
    console.log(
      `\nA second POST for the same org answers the same job: ${again.id} (deduped: ${again.deduped})`,
    );

    await publishPosts(base, orgId, store);
    await sweepSlugs(base, orgId);

    const tasks = await json(`${base}/tasks`);
    console.log('\nGET /tasks (fired by the worker process, the scheduler leader):');
    for (const task of tasks) {
      console.log(
        `  ${task.name}: cron "${task.cron}" ${task.tz}, catch-up ${task.catchUp} → enqueues ${task.jobs.join(', ')}`,
      );
    }
  } finally {
    console.log('');
    for (const [name, state] of children.reverse()) clean = (await stop(state, name)) && clean;
    await database.stop();
    if (database.source === 'embedded: started') console.log('Stopped the embedded PostgreSQL.');
    if (redis !== undefined) {
      await redis.stop();
      if (redis.source === 'throwaway: started') console.log('Stopped the throwaway redis-server.');
    }
  }
  if (!clean) throw new Error('a process did not exit cleanly (code 0) after SIGTERM');
}

main().catch((error) => {
  console.error(`\nrun-example failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
