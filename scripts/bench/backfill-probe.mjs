/**
 * The throttle bench's control, in a process of its own (`backfill-throttle.mjs` spawns it): the same read as the
 * app's request on a connection of its own at the same rate, and a sampler of what the database's other backends are
 * waiting on (`pg_stat_activity`, every 20 ms). What it prints — one JSON line per request and per sample, stamped
 * with the wall clock — tells a tail the server causes (both sides slow) from one the app's process causes (only the
 * in-process request slow): this process shares neither the pool nor the event loop.
 */
import { createRequire } from 'node:module';
import { FEED_SQL } from './backfill-feed.mjs';

const require = createRequire(import.meta.url);
const pg = require('pg');
const url = process.env.BF_URL;
const orgs = Number(process.env.BF_ORGS);
const perSecond = Number(process.env.BF_RPS);
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const emit = (line) => process.stdout.write(`${JSON.stringify(line)}\n`);

async function requests(client) {
  for (let n = 0; ; n++) {
    const t = now();
    await client.query({ name: 'feed', text: FEED_SQL, values: [n % orgs] });
    const ms = now() - t;
    emit({ k: 'req', t, ms });
    await sleep(Math.max(0, 1_000 / perSecond - ms));
  }
}

async function activity(client, own) {
  for (;;) {
    const t = now();
    const { rows } = await client.query(
      `select coalesce(wait_event_type || ':' || wait_event, 'cpu') as w, backend_type as b
       from pg_stat_activity
       where datname = current_database() and state = 'active' and not (pid = any($1::int[]))
          or backend_type = 'autovacuum worker'`,
      [own],
    );
    emit({ k: 'act', t, w: rows.map((r) => (r.b === 'autovacuum worker' ? `autovacuum` : r.w)) });
    await sleep(20);
  }
}

const reader = new pg.Client({ connectionString: url });
const sampler = new pg.Client({ connectionString: url });
await reader.connect();
await sampler.connect();
const own = [reader.processID, sampler.processID];
emit({ k: 'ready' });
await Promise.all([requests(reader), activity(sampler, own)]);
