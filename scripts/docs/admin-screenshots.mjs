/**
 * Screenshots of each admin page for the README: docs/admin/<view>.png. Starts a throwaway PostgreSQL (or uses
 * DATABASE_URL), the browser specs' app (libs/jobs/test/admin/admin-app.ts: JobsModule with a worker and the admin page),
 * enqueues a few runs (one dead with its steps, some done, some delayed), and photographs every view in Debian's
 * chromium through playwright-core.
 *
 *   node scripts/docs/admin-screenshots.mjs
 */
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startPostgres } from '../bench/embedded-pg.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
require(join(ROOT, 'libs/jobs-pg/test/swc-register.js'));
require('reflect-metadata');
const pg = require('pg');
const jobsPg = require('@ultimat3/jobs-pg');
const { chromium } = require('playwright-core');
const appKit = require(join(ROOT, 'libs/jobs/test/admin/admin-app.ts'));
const { buildAdminAssets, chromiumPath } = require(join(ROOT, 'libs/jobs/test/admin/chromium.ts'));

const OUT = join(ROOT, 'docs/admin');
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function database(serverUrl) {
  const name = `jobs_admin_shots_${process.pid}`;
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  await client.query(`drop database if exists ${name} with (force)`);
  await client.query(`create database ${name}`);
  await client.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: 2 });
  await jobsPg.migrate(jobsPg.pgPoolExecutor(pool));
  return { url: url.toString(), pool };
}

async function until(read) {
  for (let i = 0; i < 500; i++) {
    if (await read()) return;
    await sleep(20);
  }
  throw new Error('timed out');
}

async function main() {
  const server = await startPostgres();
  const db = await database(server.url);
  const assets = buildAdminAssets(join(tmpdir(), `jobs-admin-shots-${process.pid}`));
  const admin = await appKit.startAdminApp(db.url, { assetsDir: assets, pollMs: 1000 });
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox'] });
  try {
    const { id: deadId } = await appKit.flaky.enqueue({
      order: 'o-1042',
      card: '4242 4242 4242 4242',
    });
    await appKit.flaky.enqueue({ order: 'o-1043', card: '5555 5555 5555 4444' });
    for (let n = 1; n <= 12; n++) await appKit.quick.enqueue({ n });
    for (let n = 1; n <= 5; n++) await appKit.other.enqueue({ n });
    for (let n = 1; n <= 4; n++) await appKit.later.enqueue({ n }, { delay: '1h' });
    const state = async (id) =>
      (await db.pool.query('select state from x_jobs where id = $1', [id])).rows[0]?.state;
    await until(async () => (await state(deadId)) === 'dead');
    await sleep(1500);

    mkdirSync(OUT, { recursive: true });
    const context = await browser.newContext({
      extraHTTPHeaders: appKit.WRITER,
      viewport: { width: 1280, height: 800 },
    });
    const page = await context.newPage();
    const views = [
      ['queues', 'queues', '[data-testid="queue-work"]'],
      ['jobs', 'jobs', '[data-testid="jobs"] tbody tr'],
      ['job', `job/${deadId}`, '[data-testid="steps"]'],
      ['dead', 'dead', '[data-testid="jobs"] tbody tr'],
      ['workers', 'workers', '[data-testid="workers"] tbody tr'],
      ['tasks', 'tasks', '[data-testid="tasks"] tbody tr'],
      ['backfills', 'backfills', '[data-testid="backfills"]'],
    ];
    await page.goto(`${admin.page}#/queues`);
    await sleep(4000); // a few polls, so the depth charts hold more than one point
    for (const [file, hash, ready] of views) {
      await page.goto(`${admin.page}#/${hash}`);
      await page.locator(ready).first().waitFor();
      await sleep(300);
      await page.screenshot({ path: join(OUT, `${file}.png`), fullPage: true });
      console.log(`docs/admin/${file}.png`);
    }
  } finally {
    await browser.close();
    await admin.close();
    await db.pool.end();
    await server.stop();
  }
}

await main();
