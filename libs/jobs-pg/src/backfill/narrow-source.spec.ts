import { InvariantError, readKeysetPage, type KeysetCursor, type KeysetPage } from '@ultimat3/jobs';
import { BfPost, seedPosts } from '../../test/backfill-posts';
import { postsSpec } from '../../test/posts-spec';

const posts = postsSpec();

/** Every page of `source` from the start, 400 rows a page, as readKeysetPage answers them. */
async function allRows(source: () => unknown): Promise<BfPost[]> {
  const rows: BfPost[] = [];
  let cursor: KeysetCursor | null = null;
  for (;;) {
    const page: KeysetPage<BfPost> = await readKeysetPage<BfPost>(
      'narrow',
      source(),
      undefined,
      cursor,
      400,
    );
    rows.push(...page.rows);
    if (page.cursor === null) return rows;
    cursor = page.cursor;
  }
}

describe('a backfill source narrowed to the columns its handle needs, on PostgreSQL', () => {
  it('pages over the same rows as the whole entity, each row hydrating only what the source selects', async () => {
    await seedPosts(posts.data, 1_000); // 667 published
    const published = () =>
      posts.data
        .getRepository(BfPost)
        .createQueryBuilder('p')
        .where('p.published = :on', { on: true });
    const whole = await allRows(published);
    const narrow = await allRows(() => published().select(['p.id']));

    expect(whole).toHaveLength(667);
    expect(narrow.map((r) => r.id)).toEqual(whole.map((r) => r.id));
    expect(narrow[0]).toBeInstanceOf(BfPost);
    // only the id was read: every other column of every row is unset
    expect(narrow.filter((r) => JSON.stringify(r) !== `{"id":${r.id}}`)).toEqual([]);
    expect(whole[0]!.title).toBe(`Post ${whole[0]!.id}`);
  });

  it('refuses a source whose select leaves out the key, naming the key and the fix, before any row is handled', async () => {
    await seedPosts(posts.data, 10);
    const titles = posts.data.getRepository(BfPost).createQueryBuilder('p').select(['p.title']);

    const read = readKeysetPage<BfPost>('narrow', titles, undefined, null, 5);

    await expect(read).rejects.toThrow(InvariantError);
    await expect(read).rejects.toMatchObject({
      code: 'X_INVARIANT',
      message: expect.stringContaining(
        'key "id" is not among the columns the source selects',
      ) as unknown,
      fix: expect.stringContaining(".addSelect('<alias>.id')") as unknown,
    });
  });
});
