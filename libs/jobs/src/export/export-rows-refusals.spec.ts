import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { frozenClock } from '../testing/frozen-clock';
import type { ExportSink } from './export-sink';
import { ExportOrder, seedOrders } from '../../test/export-orders';
import { clock, completed, exportFixture, type Columns } from '../../test/export-fixture';

const f = exportFixture();
const { declare, catParts, until } = f;

describe('exportRows(): pacing, empty sources and refusals', () => {
  it('paces pages at the declared rate on the export clock', async () => {
    await seedOrders(f.db.data, 500);
    // source() is called as each page starts (the throttle measures from there)
    const started: number[] = [];
    const x = declare({
      batch: 100,
      rate: 2,
      source: () => (
        started.push(clock.now()),
        f.db.data.getRepository(ExportOrder).createQueryBuilder('o')
      ),
    });
    await f.start(x.handle);
    await x.handle.enqueue({ orgId: 'org-a', exportId: 'paced' });
    await until('the export to settle', () => x.settled.length > 0);
    // five full parts, then the empty one that ends the export
    expect(completed(x.settled[0])).toMatchObject({ parts: 6, rows: 500 });
    expect(started).toHaveLength(6);
    const gaps = started.slice(1).map((t, i) => t - started[i]!);
    // each page starts at least 1 / rate = 500 ms after the one before
    expect(gaps.every((g) => g >= 500)).toBe(true);
  });

  it('pauses between pages only: the short page that ends the export goes straight to the manifest', async () => {
    await seedOrders(f.db.data, 150);
    // the export paces on a clock of its own, moved only here: each pause it arms is counted, then paid
    const pace = frozenClock(Date.UTC(2026, 5, 1));
    const x = declare({ batch: 100, rate: 2, clock: pace });
    await f.start(x.handle);
    await x.handle.enqueue({ orgId: 'org-a', exportId: 'last-unpaced' });
    let pauses = 0;
    let paying = false;
    await until('the export to settle', () => {
      if (!paying && pace.pending() > 0) {
        pauses++;
        paying = true;
        void pace.advance(500).then(() => (paying = false));
      }
      return x.settled.length > 0;
    });
    expect(completed(x.settled[0])).toMatchObject({ parts: 2, rows: 150 });
    expect(pauses).toBe(1);
    const manifest = JSON.parse(
      await readFile(join(f.root, 'exports/org-a/last-unpaced/manifest.json'), 'utf8'),
    ) as { completedAtMs: number };
    expect(manifest.completedAtMs).toBe(Date.UTC(2026, 5, 1) + 500);
  });

  it('an empty source writes part 0 with the header alone', async () => {
    await seedOrders(f.db.data, 0);
    const x = declare();
    await f.start(x.handle);
    await x.handle.enqueue({ orgId: 'org-a', exportId: 'empty' });
    await until('the export to settle', () => x.settled.length > 0);
    expect(completed(x.settled[0])).toMatchObject({ parts: 1, rows: 0 });
    expect((await catParts('exports/org-a/empty')).text).toBe('id,customer,cents,note\n');
  });

  it('a row() key outside columns is X_EXPORT_ROW_INVALID, dead on its first attempt', async () => {
    await seedOrders(f.db.data, 10);
    const x = declare({
      row: (o) => ({ ...o }) as unknown as Record<Columns, string>,
      columns: ['id', 'customer', 'cents'],
    });
    const h = await f.start(x.handle);
    const { id } = await x.handle.enqueue({ orgId: 'org-a', exportId: 'bad-row' });
    await until('the export to settle', () => x.settled.length > 0);
    expect(x.settled[0]).toMatchObject({ outcome: 'dead-lettered', code: 'X_EXPORT_ROW_INVALID' });
    expect(x.settled[0]).toMatchObject({ error: expect.stringContaining('key "note"') });
    expect((await h.driver.get(id))?.attempt).toBe(1);
    expect(x.writes).toEqual([]);
  });

  it('a page past maxPartBytes is X_EXPORT_PART_TOO_LARGE naming the batch to lower', async () => {
    await seedOrders(f.db.data, 1_000);
    const x = declare({ batch: 500, maxPartBytes: 4_096 });
    await f.start(x.handle);
    await x.handle.enqueue({ orgId: 'org-a', exportId: 'big' });
    await until('the export to settle', () => x.settled.length > 0);
    const settled = x.settled[0];
    expect(settled).toMatchObject({ outcome: 'dead-lettered', code: 'X_EXPORT_PART_TOO_LARGE' });
    const suggested = /Lower batch from 500 to (\d+)/.exec(
      settled?.outcome === 'completed' ? '' : settled!.error,
    );
    expect(Number(suggested?.[1])).toBeGreaterThan(0);
    expect(Number(suggested?.[1])).toBeLessThan(500);
    expect(x.writes).toEqual([]);
  });

  it("a source that is no query reads as the export's failure, not a backfill's", async () => {
    const x = declare({ source: () => null as never, retry: { attempts: 1 } });
    await f.start(x.handle);
    await x.handle.enqueue({ orgId: 'org-a', exportId: 'no-source' });
    await until('the export to settle', () => x.settled.length > 0);
    expect(x.settled[0]).toMatchObject({
      outcome: 'dead-lettered',
      code: 'X_INVARIANT',
      error: expect.stringContaining(`export "${x.handle.name}": source() answered null`),
    });
  });

  it('refuses a bad declaration at the declaration, and a prefix that could escape at the enqueue', async () => {
    const base = declare().handle;
    expect(base.name).toMatch(/^orders\.export\./);
    expect(() => declare({ format: 'xml' as 'csv' })).toThrow(
      expect.objectContaining({ code: 'X_JOB_DECLARATION_INVALID' }),
    );
    expect(() => declare({ columns: ['id', 'id'] })).toThrow(
      expect.objectContaining({ code: 'X_JOB_DECLARATION_INVALID' }),
    );
    expect(() => declare({ rate: 0 })).toThrow(
      expect.objectContaining({ code: 'X_JOB_DECLARATION_INVALID' }),
    );
    expect(() => declare({ batch: 0 })).toThrow(
      expect.objectContaining({ code: 'X_JOB_DECLARATION_INVALID' }),
    );
    expect(() => declare({ batch: 100_001 })).toThrow(
      expect.objectContaining({ code: 'X_JOB_DECLARATION_INVALID' }),
    );
    expect(() => declare({ sink: {} as ExportSink })).toThrow(
      expect.objectContaining({ code: 'X_JOB_DECLARATION_INVALID' }),
    );

    const x = declare();
    await f.start(x.handle);
    for (const exportId of ['../../etc', '', 'a//b', 'a/./b', 'a\\b', 'a\nb']) {
      await expect(x.handle.enqueue({ orgId: 'org-a', exportId })).rejects.toMatchObject({
        code: 'X_JOB_INPUT_INVALID',
      });
    }
  });
});
