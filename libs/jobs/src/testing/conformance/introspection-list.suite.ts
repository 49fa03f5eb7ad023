import { idsOf, Q, type Harness } from './harness';

/** introspect.list: newest first, filters, page bounds and cursors. */
export function introspectionListSuite(h: Harness): void {
  describe('introspect.list', () => {
    /** Enqueues `n` rows and answers their ids, oldest first. */
    const seed = async (n: number): Promise<string[]> => {
      const requests = Array.from({ length: n }, () => h.request());
      await h.driver().enqueueMany(requests);
      return requests.map((r) => r.id);
    };

    it('answers rows newest first', async () => {
      const ids = await seed(3);
      expect((await h.introspect().list()).map((r) => r.id)).toEqual([...ids].reverse());
    });

    it('filters by queue, name, state and tenant', async () => {
      const dead = await h.rowIn('dead', { queue: 'q-b', name: 'conformance.a' });
      const a = await h.enqueue({ queue: 'q-a', name: 'conformance.a', tenantId: 'org-1' });
      const b = await h.enqueue({ queue: 'q-b', name: 'conformance.b', tenantId: 'org-2' });
      const list = h.introspect().list;
      expect(idsOf(await list({ queue: 'q-a' }))).toEqual([a.id]);
      expect(idsOf(await list({ name: 'conformance.a' }))).toEqual(idsOf([a, dead]));
      expect(idsOf(await list({ state: 'dead' }))).toEqual([dead.id]);
      expect(idsOf(await list({ tenantId: 'org-2' }))).toEqual([b.id]);
      expect(idsOf(await list({ queue: 'q-b', state: 'ready' }))).toEqual([b.id]);
      expect(await list({ queue: 'q-none' })).toEqual([]);
    });

    it('answers 100 rows by default and at most 200, and a short page is the last', async () => {
      const ids = await seed(201);
      const list = h.introspect().list;
      const first = await list();
      expect(first).toHaveLength(100);
      expect(await list({ limit: 200 })).toHaveLength(200);
      const last = await list({ limit: 200, after: ids[1] });
      expect(last.map((r) => r.id)).toEqual([ids[0]]);
    });

    it.each([201, 0, -1, 1.5])('refuses limit %s with X_JOB_PAGE_INVALID', async (limit) => {
      await seed(1);
      await expect(h.introspect().list({ limit })).rejects.toMatchObject({
        code: 'X_JOB_PAGE_INVALID',
      });
    });

    it('pages to older rows with after, and to the nearest newer rows with before', async () => {
      const [r0, r1, r2, r3, r4] = await seed(5);
      const page = async (filter: { after?: string; before?: string }): Promise<string[]> =>
        (await h.introspect().list({ limit: 2, ...filter })).map((r) => r.id);
      expect(await page({})).toEqual([r4, r3]);
      expect(await page({ after: r3 })).toEqual([r2, r1]);
      expect(await page({ after: r1 })).toEqual([r0]);
      expect(await page({ after: r0 })).toEqual([]);
      expect(await page({ before: r1 })).toEqual([r3, r2]);
      expect(await page({ before: r2 })).toEqual([r4, r3]);
      expect(await page({ before: r3 })).toEqual([r4]);
      expect(await page({ before: r4 })).toEqual([]);
    });

    it('is X_JOB_PAGE_INVALID for both cursors at once, or a cursor naming no row (named in the error)', async () => {
      const [r0, r1] = await seed(2);
      const list = h.introspect().list;
      const invalid = { code: 'X_JOB_PAGE_INVALID' };
      await expect(list({ after: r1, before: r0 })).rejects.toMatchObject(invalid);
      await expect(list({ after: h.newId() })).rejects.toMatchObject({
        ...invalid,
        meta: { cursor: 'after' },
      });
      await expect(list({ before: h.newId() })).rejects.toMatchObject({
        ...invalid,
        meta: { cursor: 'before' },
      });
      await expect(list({ after: 'not-an-id' })).rejects.toMatchObject(invalid);
    });

    it('filters by id prefix: the start of an id, as short as an operator copies it', async () => {
      const [r0, r1, r2] = await seed(3);
      const list = h.introspect().list;
      // the first 13 characters are the whole 48-bit millisecond of a UUIDv7; the harness mints one per millisecond
      expect(idsOf(await list({ idPrefix: r1!.slice(0, 13) }))).toEqual([r1]);
      expect(idsOf(await list({ idPrefix: r2! }))).toEqual([r2]);
      expect(idsOf(await list({ idPrefix: r0!.slice(0, 8) }))).toEqual(
        idsOf([r0, r1, r2].map((id) => ({ id: id! }))),
      );
      expect(await list({ idPrefix: r0!.slice(0, 12) + 'f' })).toEqual([]);
      expect(idsOf(await list({ idPrefix: r0!.slice(0, 8), after: r2 }))).toEqual(
        idsOf([{ id: r0! }, { id: r1! }]),
      );
    });

    it('filters by creation time: createdFrom inclusive, createdTo exclusive, with the other filters and cursors', async () => {
      const t0 = h.clock().now();
      const a = await h.enqueue();
      await h.clock().advance(1_000);
      const b = await h.enqueue({ queue: 'q-b' });
      await h.clock().advance(1_000);
      const c = await h.enqueue();
      const list = h.introspect().list;
      const ids = async (filter: object): Promise<string[]> =>
        (await list(filter)).map((r) => r.id);
      expect(await ids({ createdFrom: t0 + 1_000 })).toEqual([c.id, b.id]);
      expect(await ids({ createdTo: t0 + 1_000 })).toEqual([a.id]);
      expect(await ids({ createdFrom: t0 + 1_000, createdTo: t0 + 2_000 })).toEqual([b.id]);
      expect(await ids({ createdFrom: t0, createdTo: t0 })).toEqual([]);
      expect(await ids({ createdFrom: t0 + 1_000, queue: Q })).toEqual([c.id]);
      expect(await ids({ createdTo: t0 + 2_001, limit: 1, after: c.id })).toEqual([b.id]);
      expect(await ids({ createdFrom: t0, limit: 1, before: a.id })).toEqual([b.id]);
    });

    it.each([
      ['idPrefix', { idPrefix: '' }],
      ['idPrefix', { idPrefix: '0194F3A2' }],
      ['idPrefix', { idPrefix: '0194f3a2x' }],
      ['idPrefix', { idPrefix: '0194f3a2c' }],
      ['idPrefix', { idPrefix: 'x'.repeat(37) }],
      ['idPrefix', { idPrefix: 42 }],
      ['createdFrom', { createdFrom: 1.5 }],
      ['createdFrom', { createdFrom: '2026-01-01' }],
      ['createdTo', { createdTo: Number.MAX_SAFE_INTEGER }],
      ['createdFrom', { createdFrom: 2_000, createdTo: 1_000 }],
    ])('a filter no row could match is X_VALUE_INVALID naming %s', async (field, filter) => {
      await seed(1);
      await expect(h.introspect().list(filter as never)).rejects.toMatchObject({
        code: 'X_VALUE_INVALID',
        meta: { field: `list(filter).${field}` },
      });
    });
  });
}
