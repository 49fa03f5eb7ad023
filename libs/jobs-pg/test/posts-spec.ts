import type { DataSource } from 'typeorm';
import type { BackfillInput, BackfillResult, JobSettled } from '@ultimat3/jobs';
import type { JobsHarness, RunJobsOptions } from '@ultimat3/jobs/testing';
import { harnessSlot } from '../../jobs/test/harness-slot';
import { postsDataSource, seedPosts } from './backfill-posts';
import { pgJobsSpec, type SpecDatabase } from './pg-jobs-spec';

/** Options of {@link postsSpec}. */
export interface PostsSpecOptions {
  /** Apply the jobs migrations to the spec's database (default false: the specs that need none boot faster). */
  readonly migrate?: boolean;
  /** Seed `bf_posts` with ids 1…n once, before the first test (default: an empty table). */
  readonly seed?: number;
}

/** What a spec over the `bf_posts` table shares: its database, a DataSource over the table, its harnesses. */
export interface PostsSpec {
  /** The spec's own database (from `beforeAll` on). */
  readonly db: SpecDatabase;
  /** A DataSource over it with `BfPost`, its table created (from `beforeAll` on). */
  readonly data: DataSource;
  /** `runJobs(options)`, the harness closed after the test that started it (a test may close it sooner: once). */
  runJobs(options: RunJobsOptions): Promise<JobsHarness>;
}

/**
 * The set-up every backfill spec over `bf_posts` repeats, registered once: a fresh test database and a DataSource over
 * the table in `beforeAll` (seeded when asked), every harness started through `runJobs` closed after its test, the
 * DataSource destroyed and the database dropped in `afterAll`. Call at the top of the spec file.
 */
export function postsSpec(options: PostsSpecOptions = {}): PostsSpec {
  let data: DataSource | undefined;
  const harnesses = harnessSlot();
  const db = pgJobsSpec({
    migrate: options.migrate ?? false,
    beforeDrop: async () => {
      await data?.destroy();
    },
  });
  beforeAll(async () => {
    data = await postsDataSource(db.url);
    if (options.seed !== undefined) await seedPosts(data, options.seed);
  });
  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`postsSpec: ${what} is set in beforeAll`);
    return value;
  };
  return {
    db,
    get data() {
      return ready(data, 'data');
    },
    runJobs: (runOptions) => harnesses.start(runOptions),
  };
}

/** A real wait: lets the database answer between two moves of a frozen clock. */
export const realPause = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Moves the harness's frozen clock in `stepMs` hops, letting the database answer between them, until `done` holds;
 * throws after 4,000 hops.
 */
export async function drive(
  harness: JobsHarness,
  done: () => boolean | Promise<boolean>,
  stepMs = 250,
): Promise<void> {
  for (let i = 0; i < 4_000; i++) {
    if (await done()) return;
    await harness.advance(stepMs);
    await realPause(2);
  }
  throw new Error('the pass never finished');
}

/** A settled pass's report, when it completed. */
export const resultOf = (
  s: JobSettled<BackfillInput, BackfillResult> | undefined,
): BackfillResult | undefined => (s?.outcome === 'completed' ? s.result : undefined);
