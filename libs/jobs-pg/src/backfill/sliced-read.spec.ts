import {
  readKeysetPage,
  readKeysetPageInSlices,
  type KeysetCursor,
  type KeysetPage,
} from '@ultimat3/jobs';
import type { SelectQueryBuilder } from 'typeorm';
import { BfPost, seedPosts } from '../../test/backfill-posts';
import { postsSpec } from '../../test/posts-spec';

const posts = postsSpec();

/**
 * The published posts as a backfill source whose every statement is counted: each keyset read clones the source and
 * runs `getMany` on the clone once, so `reads` is how many statements a page cost. `before(n)` runs (and is awaited)
 * before the n-th statement (from 0) goes out — the gap between two sub-reads, where another writer may commit.
 */
function countedSource(before: (n: number) => Promise<void> = async () => undefined) {
  const base = posts.data
    .getRepository(BfPost)
    .createQueryBuilder('p')
    .where('p.published = :on', { on: true });
  const counter = { reads: 0 };
  const clone = base.clone.bind(base);
  base.clone = (): SelectQueryBuilder<BfPost> => {
    const copy = clone();
    const getMany = copy.getMany.bind(copy);
    copy.getMany = async () => {
      await before(counter.reads++);
      return getMany();
    };
    return copy;
  };
  return { source: base, counter };
}

const ids = (page: KeysetPage<BfPost>): number[] => page.rows.map((r) => r.id);

/** Every page of the source, one after the other from the start, as `read` answers them. */
async function allPages(
  read: (after: KeysetCursor | null) => Promise<KeysetPage<BfPost>>,
): Promise<KeysetPage<BfPost>[]> {
  const pages: KeysetPage<BfPost>[] = [];
  let cursor: KeysetCursor | null = null;
  for (;;) {
    const page = await read(cursor);
    pages.push(page);
    if (page.cursor === null) return pages;
    cursor = page.cursor;
  }
}

describe('a backfill page read as keyset sub-reads, on PostgreSQL', () => {
  it('hands exactly the rows and cursors a single read would, page after page, in k statements a page', async () => {
    await seedPosts(posts.data, 2_500); // 1,667 published: pages of 1,000 and 667, then an empty one
    const single = countedSource();
    const whole = await allPages((after) =>
      readKeysetPage<BfPost>('slices', single.source, undefined, after, 1_000),
    );
    expect(whole.map((p) => p.rows.length)).toEqual([1_000, 667, 0]);
    expect(single.counter.reads).toBe(3);

    for (const [slice, reads] of [
      [250, 4 + 3 + 1], // 1,000 = 4 × 250; 667 = 250 + 250 + 167 (short: the source ran out); the empty page
      [300, 4 + 3 + 1], // 300 + 300 + 300 + 100; 300 + 300 + 67; the empty page
      [1_000, 3], // a slice of the whole batch is the single read
      [7, 143 + 96 + 1], // 142 × 7 + 6; 95 × 7 + 2 (short); the empty page
    ]) {
      const sliced = countedSource();
      const pages = await allPages((after) =>
        readKeysetPageInSlices<BfPost>('slices', sliced.source, undefined, after, 1_000, slice),
      );
      expect(pages.map(ids)).toEqual(whole.map(ids));
      expect(pages.map((p) => p.cursor)).toEqual(whole.map((p) => p.cursor));
      expect(sliced.counter.reads).toBe(reads);
    }
  });

  it('sees rows written between two sub-reads as a keyset read across pages does', async () => {
    await seedPosts(posts.data, 2_500);
    // between the first and second sub-read (the cursor after id 374, the 250th published post): one post behind
    // the cursor and one ahead of it become published (as if inserted), one ahead is deleted
    const between = async (n: number): Promise<void> => {
      if (n !== 1) return;
      await posts.data.query('update bf_posts set published = true where id in (3, 603)');
      await posts.data.query('delete from bf_posts where id = 700');
    };
    const sliced = countedSource(between);
    const page = await readKeysetPageInSlices<BfPost>(
      'slices',
      sliced.source,
      undefined,
      null,
      1_000,
      250,
    );
    const read = ids(page);
    expect(read.slice(0, 250).at(-1)).toBe(374);
    expect(read).not.toContain(3); // behind the cursor: a keyset never looks back
    expect(read).toContain(603); // ahead of it: read
    expect(read).not.toContain(700); // deleted ahead of it: not read
    // the page is the first sub-read's rows, then exactly what one read past its cursor answers after the writes
    const rest = await readKeysetPage<BfPost>(
      'slices',
      countedSource().source,
      undefined,
      [374],
      750,
    );
    const published = [...Array(374).keys()].map((i) => i + 1).filter((i) => i % 3 !== 0);
    expect(read.slice(0, 250)).toEqual(published); // the first sub-read, from before the writes
    expect(read.slice(250)).toEqual(ids(rest));
    expect(page.cursor).toEqual(rest.cursor);
    expect(new Set(read).size).toBe(1_000); // no row twice, and the page still full
  });

  it('answers an empty page with a null cursor, and reads the source once when it has fewer rows than a slice', async () => {
    await seedPosts(posts.data, 0);
    const empty = countedSource();
    expect(
      await readKeysetPageInSlices<BfPost>('slices', empty.source, undefined, null, 1_000, 250),
    ).toEqual({ rows: [], cursor: null });
    expect(empty.counter.reads).toBe(1);

    await seedPosts(posts.data, 30);
    const small = countedSource();
    const page = await readKeysetPageInSlices<BfPost>(
      'slices',
      small.source,
      undefined,
      null,
      1_000,
      250,
    );
    expect(ids(page)).toEqual([...Array(30).keys()].map((i) => i + 1).filter((i) => i % 3 !== 0));
    expect(page.cursor).toEqual([29]);
    expect(small.counter.reads).toBe(1);
  });
});
