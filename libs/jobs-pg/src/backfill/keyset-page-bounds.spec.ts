import { readKeysetPage, type KeysetCursor, type KeysetPage } from '@ultimat3/jobs';
import { BfPost } from '../../test/backfill-posts';
import { postsSpec } from '../../test/posts-spec';

const posts = postsSpec({ seed: 25 });
const query = () => posts.data.getRepository(BfPost).createQueryBuilder('p');

/** The ids of each page of `source`, 10 rows a page, read as a pass reads them: until a short page. */
async function pages(source: () => unknown): Promise<number[][]> {
  const ids: number[][] = [];
  let cursor: KeysetCursor | null = null;
  for (let i = 0; i < 10; i++) {
    const page: KeysetPage<BfPost> = await readKeysetPage<BfPost>(
      'bounds',
      source(),
      undefined,
      cursor,
      10,
    );
    ids.push(page.rows.map((r) => r.id));
    if (page.rows.length < 10) return ids;
    cursor = page.cursor;
  }
  throw new Error('still paging after 10 pages');
}

const range = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('the keyset page bounds a source cannot override, on PostgreSQL', () => {
  it.each([
    ['LIMIT', () => query().limit(5)],
    ['OFFSET', () => query().offset(3)],
    ['LIMIT and OFFSET', () => query().offset(3).limit(5)],
  ])(
    'pages over every row, batch rows a page, when the source carries its own %s',
    async (_, source) => {
      expect(await pages(source)).toEqual([range(1, 10), range(11, 20), range(21, 25)]);
    },
  );

  it('refuses a stored cursor of more values than the key, rather than paging on part of it', async () => {
    const read = readKeysetPage<BfPost>('bounds', query(), undefined, [5, 6], 10);
    await expect(read).rejects.toMatchObject({
      code: 'X_INVARIANT',
      message: expect.stringContaining('the stored cursor has 2 value(s) and the key 1') as unknown,
    });
  });
});
