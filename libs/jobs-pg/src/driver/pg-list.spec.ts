import { randomUUID } from 'node:crypto';
import { uuidv7 } from '@ultimat3/jobs';
import { frozenClock } from '@ultimat3/jobs/testing';
import { SQL_LIST_CREATED } from '../sql/list-created.sql';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { request } from '../../test/requests';
import { postgresJobDriver } from './pg-driver';

interface PlanNode {
  readonly 'Node Type': string;
  readonly 'Relation Name'?: string;
  readonly 'Index Name'?: string;
  readonly Plans?: readonly PlanNode[];
}

function scansOf(node: PlanNode, out: string[] = []): string[] {
  if (node['Relation Name'] === 'x_jobs')
    out.push(`${node['Node Type']} ${node['Index Name'] ?? ''}`);
  for (const child of node.Plans ?? []) scansOf(child, out);
  return out;
}

const T = Date.UTC(2026, 0, 1, 12);
const HOUR = 3_600_000;

describe('postgres list by created window: the primary key walk answers the rows a filter over every row would', () => {
  const db = pgJobsSpec();
  beforeAll(async () => {
    // 50,000 rows created a day before T, 1 ms apart, each id minted in the ms of its created_at
    await db.pool.query(
      `insert into x_jobs (id, run_id, name, queue, input, idempotency_key, state, attempt, max_attempts, run_at,
         created_at, updated_at, finished_at)
       select (substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-7' || substr(gen_random_uuid()::text, 16))::uuid,
         gen_random_uuid(), 'old.job', 'old-q', '{}', 'k' || g, 'done', 1, 3, t, t, t, t
       from generate_series(1, 50000) g,
         lateral (select to_timestamp(($1::bigint - 86400000 + g)::float8 / 1000) as t) x,
         lateral (select lpad(to_hex($1::bigint - 86400000 + g), 12, '0') as h) y`,
      [T],
    );
    await db.pool.query('vacuum analyze x_jobs');
  });

  it('lists the rows whose id time is far from their created_at (published late, minted elsewhere), in id order', async () => {
    const driver = postgresJobDriver({ executor: db.executor, clock: frozenClock(T) });
    const queue = 'strays-q';
    const near = await driver.enqueue(request({ queue, id: uuidv7(T) }));
    // an outbox job staged an hour before the relay published it, one minted by a clock an hour ahead, and a UUIDv4
    const late = await driver.enqueue(request({ queue, id: uuidv7(T - HOUR) }));
    const ahead = await driver.enqueue(request({ queue, id: uuidv7(T + HOUR) }));
    const foreign = await driver.enqueue(request({ queue, id: randomUUID() }));
    const newestFirst = [near, late, ahead, foreign]
      .map((r) => r.id)
      .sort()
      .reverse();

    const ids = async (filter: Parameters<typeof driver.introspect.list>[0]): Promise<string[]> =>
      (await driver.introspect.list(filter)).map((row) => row.id);
    expect(await ids({ createdFrom: T, createdTo: T + 1 })).toEqual(newestFirst);
    expect(await ids({ createdFrom: T })).toEqual(newestFirst);
    expect(await ids({ createdTo: T + 1, queue })).toEqual(newestFirst);
    expect(await ids({ createdFrom: T + 1 })).toEqual([]);
    expect(await ids({ createdFrom: T - HOUR, createdTo: T })).toEqual([]);
    // paged one row at a time, both ways
    const pages: string[] = [];
    for (let after: string | undefined; pages.length < 5;) {
      const [id] = await ids({ createdFrom: T, createdTo: T + 1, limit: 1, after });
      if (id === undefined) break;
      pages.push(id);
      after = id;
    }
    expect(pages).toEqual(newestFirst);
    expect(await ids({ createdFrom: T, limit: 2, before: newestFirst[3] })).toEqual(
      newestFirst.slice(1, 3),
    );
  });

  it('walks the primary key over the window’s ids and reads strays from their own index, never the table', async () => {
    const from = T - 86_400_000 + 20_000;
    const low = (T - 86_400_000 + 20_000 - 10_001).toString(16).padStart(12, '0');
    const high = (T - 86_400_000 + 21_000 + 10_001).toString(16).padStart(12, '0');
    const { rows } = await db.pool.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
      `explain (format json) ${SQL_LIST_CREATED}`,
      [
        ...[null, null, null, null, null, 50, null, null],
        new Date(from).toISOString(),
        new Date(from + 1_000).toISOString(),
        `${low.slice(0, 8)}-${low.slice(8)}-0000-0000-000000000000`,
        `${high.slice(0, 8)}-${high.slice(8)}-ffff-ffff-ffffffffffff`,
      ],
    );
    const scans = scansOf(rows[0]!['QUERY PLAN'][0].Plan);
    expect(scans).toContain('Index Scan x_jobs_pkey');
    expect(scans.some((scan) => scan.endsWith('x_jobs_created_stray3_idx'))).toBe(true);
    expect(scans.some((scan) => scan.startsWith('Seq Scan'))).toBe(false);
  });
});
