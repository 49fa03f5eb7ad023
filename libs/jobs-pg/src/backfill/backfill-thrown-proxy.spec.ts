import {
  backfill,
  memoryBackfillLedger,
  type BackfillInput,
  type BackfillResult,
  type JobSettled,
} from '@ultimat3/jobs';
import { frozenClock } from '@ultimat3/jobs/testing';
import { BfPost, seedPosts } from '../../test/backfill-posts';
import { drive, postsSpec } from '../../test/posts-spec';

const posts = postsSpec();

/** A value every read of which throws, `instanceof` included: what a handle may throw. */
function revokedProxy(): object {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

describe('a backfill whose handle throws a value nobody can read', () => {
  it('records its pass failed in the ledger, and fails with the value rendered, not with a TypeError of its own', async () => {
    await seedPosts(posts.data, 5);
    const clock = frozenClock();
    const ledger = memoryBackfillLedger();
    const settled: JobSettled<BackfillInput, BackfillResult>[] = [];
    const handle = backfill<BfPost>({
      name: 'thrown-proxy',
      batch: 10,
      rate: 1_000,
      tenant: 'none',
      clock,
      retry: { attempts: 1 },
      runtime: { ledger, environment: 'test' },
      source: () => posts.data.getRepository(BfPost).createQueryBuilder('p'),
      handle: () => {
        throw revokedProxy();
      },
      onSettled: (s) => void settled.push(s),
    });
    const h = await posts.runJobs({ jobs: [handle], clock });
    const { id } = await handle.enqueue({});
    await drive(h, () => settled.length > 0, 1);
    const row = await ledger.byJob(id);
    expect(row?.status).toBe('failed');
    expect(row?.lastError).toContain('unreadable');
    expect(settled[0]).toMatchObject({ outcome: 'dead-lettered', error: row?.lastError });
  });
});
