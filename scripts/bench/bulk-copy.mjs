#!/usr/bin/env node
/**
 * Whether `COPY … FROM STDIN` would write a bulk enqueue's rows for less than the batch statement does: 1,000-row
 * batches of the peers bench's rows (one queue, one name, no tenant, keys `n:<n>`), sent over ONE connection either
 * as `driver.enqueueMany()` (`SQL_ENQUEUE_BATCH`: one `insert … select from unnest(…)`, its wake included) or as
 * `COPY x_jobs (…) FROM STDIN` in text format in a transaction of its own (the same 18 columns, the times the
 * statement would compute sent by the client; no wake, no fallback on a conflict — the cheapest a COPY path could be).
 *
 *   npm run build && node scripts/bench/bulk-copy.mjs
 *
 * Each round runs, for each way in turn, one session of BENCH_FEW (default 4) batches and one of BENCH_MANY (default
 * 14), each in a fresh database copied from one migrated template, and answers per batch the difference of the two
 * divided by the batches between them, which cancels the session's start and the statements' first planning: the
 * backend's CPU (`/proc/<pid>/schedstat`, so the server must run on this host) and the WAL written. BENCH_ROUNDS
 * (default 5) rounds, then the medians.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { startPostgres } from './embedded-pg.mjs';
import { enqueueRequest } from './requests.mjs';
import { jobs, jobsPg, median, pg, withDatabase } from './lib.mjs';

const require = createRequire(import.meta.url);
const { from: copyFrom } = require('pg-copy-streams');

const FEW = Number(process.env.BENCH_FEW ?? 4);
const MANY = Number(process.env.BENCH_MANY ?? 14);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const COLUMNS =
  'id, run_id, name, queue, input, idempotency_key, tenant_id, enqueued_by, state, attempt, max_attempts, ' +
  'priority, run_at, created_at, updated_at, concurrency_key, traceparent, cross_tenant_reason';

const server = await startPostgres();
const admin = new pg.Client({ connectionString: server.url });
await admin.connect();
let databases = 0;

/** A database copied from `template` (or a new one), dropped by the answer's `drop()`. */
async function database(template) {
  const name = `copy_${process.pid}_${databases++}`;
  await admin.query(`create database ${name}${template ? ` template ${template}` : ''}`);
  return {
    name,
    url: withDatabase(server.url, name),
    drop: () => admin.query(`drop database ${name}`),
  };
}

const template = await database();
{
  const pool = new pg.Pool({ connectionString: template.url, max: 1 });
  await jobsPg.migrate(jobsPg.pgPoolExecutor(pool));
  await pool.end();
}

const cpuNs = (pid) => Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
const walBytes = async () =>
  BigInt((await admin.query("select pg_current_wal_lsn() - '0/0' as b")).rows[0].b);

/** A value in COPY's text format. */
const field = (value) =>
  value === null || value === undefined
    ? '\\N'
    : String(value).replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n');

/** A batch's requests as COPY text: the row `SQL_ENQUEUE_BATCH` would write for each. */
function copyText(requests) {
  const now = new Date().toISOString();
  let text = '';
  for (const r of requests) {
    const row = [
      r.id,
      r.runId,
      r.name,
      r.queue,
      JSON.stringify(r.input),
      r.idempotencyKey,
      r.tenantId,
      r.enqueuedBy,
      'ready',
      0,
      r.maxAttempts,
      r.priority,
      new Date(r.runAt).toISOString(),
      now,
      now,
      r.concurrencyKey,
      r.traceparent,
      null,
    ];
    text += `${row.map(field).join('\t')}\n`;
  }
  return text;
}

/** Microseconds from PostgreSQL's epoch (2000-01-01) to the Unix epoch's. */
const PG_EPOCH_US = 946_684_800_000_000n;
const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');

/** A batch's requests in COPY's binary format: each field its length and its bytes, nothing parsed as text. */
function copyBinary(requests) {
  const now = BigInt(Date.now()) * 1000n - PG_EPOCH_US;
  const chunks = [SIGNATURE, Buffer.alloc(8)];
  const text = (value) =>
    value === null || value === undefined ? null : Buffer.from(String(value), 'utf8');
  const int4 = (value) => {
    const b = Buffer.allocUnsafe(4);
    b.writeInt32BE(value);
    return b;
  };
  const time = (us) => {
    const b = Buffer.allocUnsafe(8);
    b.writeBigInt64BE(us);
    return b;
  };
  const uuid = (id) => Buffer.from(id.replace(/-/g, ''), 'hex');
  for (const r of requests) {
    const fields = [
      uuid(r.id),
      uuid(r.runId),
      text(r.name),
      text(r.queue),
      text(JSON.stringify(r.input)),
      text(r.idempotencyKey),
      text(r.tenantId),
      text(r.enqueuedBy),
      text('ready'),
      int4(0),
      int4(r.maxAttempts),
      int4(r.priority),
      time(BigInt(r.runAt) * 1000n - PG_EPOCH_US),
      time(now),
      time(now),
      text(r.concurrencyKey),
      text(r.traceparent),
      null,
    ];
    const count = Buffer.allocUnsafe(2);
    count.writeInt16BE(fields.length);
    chunks.push(count);
    for (const f of fields) {
      const length = Buffer.allocUnsafe(4);
      length.writeInt32BE(f === null ? -1 : f.length);
      chunks.push(length);
      if (f !== null) chunks.push(f);
    }
  }
  chunks.push(Buffer.from([0xff, 0xff]));
  return Buffer.concat(chunks);
}

/** Sends `requests` as one COPY (text or binary) in a transaction of its own, on a connection of `pool`. */
async function copyBatch(pool, requests, binary) {
  const data = binary ? copyBinary(requests) : copyText(requests);
  const format = binary ? ' with (format binary)' : '';
  const client = await pool.connect();
  try {
    await client.query('begin');
    const copy = client.query(copyFrom(`copy x_jobs (${COLUMNS}) from stdin${format}`));
    await pipeline(Readable.from([data]), copy);
    await client.query('commit');
  } finally {
    client.release();
  }
}

/** One session of `batches` batches sent `way`, in a fresh copy of the template: its backend CPU and WAL. */
async function session(way, batches) {
  const db = await database(template.name);
  const pool = new pg.Pool({ connectionString: db.url, max: 1 });
  const pid = (await pool.query('select pg_backend_pid() as p')).rows[0].p;
  const driver = jobsPg.postgresJobDriver({ executor: jobsPg.pgPoolExecutor(pool) });
  let cpu = 0;
  let wal = 0n;
  for (let b = 0, n = 10_000_000; b < batches; b++) {
    const runAt = Date.now();
    const requests = Array.from({ length: 1_000 }, () => {
      n += 1;
      const fields = {
        queue: 'drain',
        name: 'bench.drain',
        input: { n, t: 0 },
        idempotencyKey: `n:${n}`,
        runAt,
      };
      return enqueueRequest(jobs.uuidv7, fields);
    });
    const [cpuBefore, walBefore] = [cpuNs(pid), await walBytes()];
    if (way !== 'enqueueMany') await copyBatch(pool, requests, way === 'copy binary');
    else await driver.enqueueMany(requests);
    cpu += cpuNs(pid) - cpuBefore;
    wal += (await walBytes()) - walBefore;
  }
  const { rows } = await pool.query('select count(*)::int as n from x_jobs');
  await pool.end();
  await db.drop();
  if (rows[0].n !== batches * 1_000)
    throw new Error(`${way}: ${rows[0].n} rows, not ${batches * 1_000}`);
  return { cpu, wal: Number(wal) };
}

const ways = ['enqueueMany', 'copy', 'copy binary'];
const results = Object.fromEntries(ways.map((way) => [way, { cpu: [], wal: [] }]));
console.log(`${FEW} and ${MANY} batches of 1,000 a session, differenced; ${ROUNDS} rounds`);
for (let round = 1; round <= ROUNDS; round++) {
  for (const way of round % 2 ? ways : [...ways].reverse()) {
    const few = await session(way, FEW);
    const many = await session(way, MANY);
    const cpu = (many.cpu - few.cpu) / (MANY - FEW) / 1e6;
    const wal = (many.wal - few.wal) / (MANY - FEW) / 1024;
    results[way].cpu.push(cpu);
    results[way].wal.push(wal);
    console.log(
      `round ${round} ${way}: ${cpu.toFixed(2)} ms backend CPU, ${wal.toFixed(0)} kB of WAL a batch`,
    );
  }
}
for (const way of ways) {
  const { cpu, wal } = results[way];
  console.log(
    `median ${way}: ${median(cpu).toFixed(2)} ms backend CPU, ${median(wal).toFixed(0)} kB of WAL a batch`,
  );
}
await template.drop();
await admin.end();
await server.stop();
