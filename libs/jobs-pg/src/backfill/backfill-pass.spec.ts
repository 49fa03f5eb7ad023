import {
  assertTenant,
  backfill,
  currentRun,
  memoryBackfillLedger,
  type BackfillInput,
  type BackfillLedger,
  type BackfillResult,
  type JobSettled,
} from '@ultimat3/jobs';
import { frozenClock, type FrozenClock } from '@ultimat3/jobs/testing';
import { BfPost, seedPosts } from '../../test/backfill-posts';
import { drive, postsSpec, resultOf } from '../../test/posts-spec';

const posts = postsSpec();

let seq = 0;
/** A backfill of a fresh name over published posts, writing each one's slug and counting how often it was handled. */
function slugSweep(
  ledger: BackfillLedger | undefined,
  clock: FrozenClock,
  extra: Partial<Parameters<typeof backfill<BfPost>>[0]> = {},
) {
  const settled: JobSettled<BackfillInput, BackfillResult>[] = [];
  const pages: number[][] = [];
  const handle = backfill<BfPost>({
    name: `slugs-${++seq}`,
    batch: 1_000,
    rate: 50,
    tenant: 'none',
    clock,
    retry: { attempts: 3, backoff: 'fixed', delay: 100, jitter: false },
    runtime: { ledger, environment: 'test' },
    source: () =>
      posts.data
        .getRepository(BfPost)
        .createQueryBuilder('p')
        .where('p.published = :on', { on: true }),
    async handle({ rows }) {
      pages.push(rows.map((r) => r.id));
      await posts.data.query(
        `update bf_posts set handled = handled + 1, slug = lower(replace(title, ' ', '-'))
         where id = any($1::int[])`,
        [rows.map((r) => r.id)],
      );
    },
    onSettled: (s) => void settled.push(s),
    ...extra,
  });
  return { handle, settled, pages };
}

describe('backfill() over a TypeORM source on PostgreSQL', () => {
  it('pages by keyset over the primary key, one step per page, checkpointing a cursor and counts', async () => {
    await seedPosts(posts.data, 2_500);
    const clock = frozenClock();
    const ledger = memoryBackfillLedger();
    const sweep = slugSweep(ledger, clock);
    const h = await posts.runJobs({ jobs: [sweep.handle], clock });
    const { id } = await sweep.handle.enqueue({});
    await drive(h, () => sweep.settled.length > 0);

    expect(resultOf(sweep.settled[0])).toEqual({
      name: sweep.handle.name,
      batches: 2,
      rows: 1_667,
      skipped: false,
      previousRunId: null,
    });
    expect(sweep.pages.map((p) => p.length)).toEqual([1_000, 667]);
    const counts = await posts.data.query<{ handled: number; published: boolean; n: number }[]>(
      'select handled, published, count(*)::int as n from bf_posts group by 1, 2 order by 2, 1',
    );
    expect(counts).toEqual([
      { handled: 0, published: false, n: 833 },
      { handled: 1, published: true, n: 1_667 },
    ]);
    const steps = await h.driver.steps.load(id);
    expect(steps.map((s) => s.name)).toEqual(['batch:0', 'batch:1']);
    // the checkpoint is a cursor and counts, never the page
    expect(steps[0]?.output).toEqual({
      cursor: [1_499],
      rows: 1_000,
      batches: 1,
      done: false,
      startedMs: expect.any(Number),
    });
    const [row] = await ledger.list({ name: sweep.handle.name });
    expect(row).toMatchObject({
      status: 'completed',
      rows: 1_667,
      batches: 2,
      lastCursor: [2_500],
    });
  });

  it('brackets an OR source before adding the keyset, and pages on a declared key', async () => {
    await seedPosts(posts.data, 100);
    const clock = frozenClock();
    const seen: number[] = [];
    const settled: JobSettled<BackfillInput, BackfillResult>[] = [];
    const handle = backfill<BfPost>({
      name: `or-source-${++seq}`,
      batch: 4,
      rate: 1_000,
      tenant: 'none',
      clock,
      key: 'id',
      source: () =>
        posts.data
          .getRepository(BfPost)
          .createQueryBuilder('p')
          .where('p.id < 6 or p.id > 95')
          .skip(3),
      handle: ({ rows }) => void seen.push(...rows.map((r) => r.id)),
      onSettled: (s) => void settled.push(s),
    });
    const h = await posts.runJobs({ jobs: [handle], clock });
    await handle.enqueue({});
    await drive(h, () => settled.length > 0, 1);
    expect(seen).toEqual([1, 2, 3, 4, 5, 96, 97, 98, 99, 100]);
    expect(resultOf(settled[0])).toMatchObject({ rows: 10, batches: 3 });
  });

  it('reads a repository with a where-clause', async () => {
    await seedPosts(posts.data, 30);
    const clock = frozenClock();
    const seen: number[] = [];
    const settled: JobSettled<BackfillInput, BackfillResult>[] = [];
    const handle = backfill<BfPost>({
      name: `repository-${++seq}`,
      batch: 7,
      rate: 1_000,
      tenant: 'none',
      clock,
      source: () => ({ repository: posts.data.getRepository(BfPost), where: { published: false } }),
      handle: ({ rows }) => void seen.push(...rows.map((r) => r.id)),
      onSettled: (s) => void settled.push(s),
    });
    const h = await posts.runJobs({ jobs: [handle], clock });
    await handle.enqueue({});
    await drive(h, () => settled.length > 0, 1);
    expect(seen).toEqual([3, 6, 9, 12, 15, 18, 21, 24, 27, 30]);
    expect(resultOf(settled[0])).toMatchObject({ rows: 10, batches: 2 });
  });

  it('resumes a failed attempt at the stored cursor: checkpointed pages are neither read nor handled again', async () => {
    await seedPosts(posts.data, 5_000);
    const clock = frozenClock();
    const ledger = memoryBackfillLedger();
    let sources = 0;
    let crashed = false;
    const pages: number[][] = [];
    const settled: JobSettled<BackfillInput, BackfillResult>[] = [];
    const crashing = backfill<BfPost>({
      name: `resume-${++seq}`,
      batch: 500,
      rate: 50,
      tenant: 'none',
      clock,
      retry: { attempts: 3, backoff: 'fixed', delay: 100, jitter: false },
      runtime: { ledger, environment: 'test' },
      source: () => {
        sources += 1;
        return posts.data.getRepository(BfPost).createQueryBuilder('p').where('p.published');
      },
      async handle({ rows }) {
        pages.push(rows.map((r) => r.id));
        if (pages.length === 4 && !crashed) {
          crashed = true;
          throw new Error('the worker died mid-page');
        }
        await posts.data.query(
          'update bf_posts set handled = handled + 1 where id = any($1::int[])',
          [rows.map((r) => r.id)],
        );
      },
      onSettled: (s) => void settled.push(s),
    });
    const h = await posts.runJobs({ jobs: [crashing], clock });
    const { id } = await crashing.enqueue({});
    await drive(h, () => settled.length > 0);

    const rows = Math.ceil((5_000 * 2) / 3); // 3,334 published
    expect(resultOf(settled[0])).toMatchObject({ rows, batches: 7, skipped: false });
    // attempt 1 read pages 0-3 and died in page 3; attempt 2 replayed 0-2 from storage and read 3-6 only
    expect(sources).toBe(4 + 4);
    // the page that died is handed again (at least once), and every other page exactly once, in key order
    expect(pages).toHaveLength(8);
    expect(pages[4]).toEqual(pages[3]);
    const published = (
      await posts.data.query<{ id: number }[]>(
        'select id from bf_posts where published order by id',
      )
    ).map((r) => r.id);
    expect(pages.filter((_, i) => i !== 3).flat()).toEqual(published);
    // the dying page threw before it wrote: every published row was written once, every other row never
    const twice = await posts.data.query<{ n: number }[]>(
      'select count(*)::int as n from bf_posts where handled <> (case when published then 1 else 0 end)',
    );
    expect(twice[0]?.n).toBe(0);
    const row = await ledger.byJob(id);
    expect(row).toMatchObject({ status: 'completed', rows, batches: 7 });
    expect((await h.driver.get(id))?.attempt).toBe(2);
  });

  it("opens the cross-tenant scope for a tenant: 'none' pass, and scopes a tenant's pass to its org", async () => {
    await seedPosts(posts.data, 3);
    const clock = frozenClock();
    const seen: { scope: string | undefined; org: string | null | undefined }[] = [];
    const settled: JobSettled<BackfillInput, BackfillResult>[] = [];
    const declare = (tenant: 'none' | (() => string)) =>
      backfill<BfPost>({
        name: `tenant-${++seq}`,
        tenant,
        clock,
        source: () => posts.data.getRepository(BfPost).createQueryBuilder('p'),
        handle: () => {
          const run = currentRun();
          seen.push({ scope: run?.crossTenant, org: run?.ctx.actor.orgId });
          // a tenant-scoped read of some org: allowed inside the pass's own scope, refused under another org
          assertTenant('org-a');
        },
        onSettled: (s) => void settled.push(s),
      });
    const sweepAll = declare('none');
    const sweepOrgA = declare(() => 'org-a');
    const sweepOrgB = declare(() => 'org-b');
    const h = await posts.runJobs({ jobs: [sweepAll, sweepOrgA, sweepOrgB], clock });
    await sweepAll.enqueue({});
    await sweepOrgA.enqueue({});
    await sweepOrgB.enqueue({});
    await drive(h, () => settled.length === 3, 1);
    expect(seen).toContainEqual({ scope: `backfill ${sweepAll.name}`, org: null });
    expect(seen).toContainEqual({ scope: undefined, org: 'org-a' });
    const refused = settled.find((s) => s.jobId !== undefined && s.ctx.actor.orgId === 'org-b');
    expect(refused).toMatchObject({ outcome: 'dead-lettered', code: 'X_JOB_TENANT_MISMATCH' });
  });
});
