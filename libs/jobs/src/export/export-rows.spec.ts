import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import type { ExportSink } from './export-sink';
import { filesystemExportSink } from './filesystem-sink';
import { ExportOrder, seedOrders } from '../../test/export-orders';
import { completed, COLUMNS, exportFixture } from '../../test/export-fixture';

const f = exportFixture();
const { declare, catParts, expectedCsv, until } = f;

describe('exportRows() from a TypeORM source on PostgreSQL', () => {
  it('writes one CSV part per keyset page, the header in part 0 only, and cat part-* parses to the source rows', async () => {
    await seedOrders(f.db.data, 2_500);
    const x = declare();
    const h = await f.start(x.handle);
    const { id } = await x.handle.enqueue({ orgId: 'org-a', exportId: 'e1' });
    await until('the export to settle', () => x.settled.length > 0);

    const result = completed(x.settled[0]);
    expect(result).toMatchObject({
      prefix: 'exports/org-a/e1',
      format: 'csv',
      parts: 3,
      rows: 2_500,
    });
    const { names, text } = await catParts('exports/org-a/e1');
    expect(names).toEqual(['part-00000.csv', 'part-00001.csv', 'part-00002.csv']);
    expect(text.split('\n').filter((l) => l === 'id,customer,cents,note')).toHaveLength(1);
    expect(text.startsWith('id,customer,cents,note\n')).toBe(true);
    for (const name of names) {
      expect((await readFile(join(f.root, 'exports/org-a/e1', name), 'utf8')).endsWith('\n')).toBe(
        true,
      );
    }
    const parsed = parse(text, { columns: true }) as Record<string, string>[];
    expect(parsed).toEqual(await expectedCsv());
    expect(result?.bytes).toBe(Buffer.byteLength(text));

    // the cell a spreadsheet would evaluate is text; a negative amount stays a number
    expect(parsed[6]).toMatchObject({
      id: '7',
      customer: `'=HYPERLINK("http://evil.example/?7","click")`,
    });
    expect(parsed[4]).toMatchObject({ cents: '-5' });
    expect(parsed[2]?.note).toBe("'+note 3");

    const manifest = JSON.parse(
      await readFile(join(f.root, 'exports/org-a/e1/manifest.json'), 'utf8'),
    );
    expect(manifest).toEqual({
      version: 1,
      name: x.handle.name,
      format: 'csv',
      columns: COLUMNS,
      parts: 3,
      rows: 2_500,
      bytes: result?.bytes,
      header: true,
      completedAtMs: expect.any(Number),
    });
    // each step checkpoints the cursor and counters, never a row
    const steps = await h.driver.steps.load(id);
    expect(steps.map((s) => s.name)).toEqual(['page:0', 'page:1', 'page:2', 'manifest']);
    expect(steps[0]?.output).toEqual({
      cursor: [1_000],
      rows: 1_000,
      parts: 1,
      bytes: expect.any(Number),
      done: false,
    });
    expect(steps[2]?.output).toMatchObject({ cursor: [2_500], rows: 2_500, parts: 3, done: true });
  });

  it('writes JSON lines in column order, no header; the empty page after a full one is an empty last part', async () => {
    await seedOrders(f.db.data, 2_000);
    const x = declare({ format: 'jsonl' });
    await f.start(x.handle);
    await x.handle.enqueue({ orgId: 'org-a', exportId: 'j1' });
    await until('the export to settle', () => x.settled.length > 0);

    expect(completed(x.settled[0])).toMatchObject({ parts: 3, rows: 2_000 });
    const { names, text } = await catParts('exports/org-a/j1');
    expect(names).toEqual(['part-00000.jsonl', 'part-00001.jsonl', 'part-00002.jsonl']);
    expect(await readFile(join(f.root, 'exports/org-a/j1/part-00002.jsonl'), 'utf8')).toBe('');
    const lines = text.split('\n');
    expect(lines.pop()).toBe('');
    const rows = await f.db.data.getRepository(ExportOrder).find({ order: { id: 'ASC' } });
    expect(lines.map((l) => JSON.parse(l))).toEqual(
      rows.map((o) => ({ id: o.id, customer: o.customer, cents: o.cents, note: o.note })),
    );
    expect(Object.keys(JSON.parse(lines[0]!))).toEqual(COLUMNS);
    expect(x.writes.filter((k) => k.includes('part-'))).toHaveLength(3);
    const manifest = JSON.parse(
      await readFile(join(f.root, 'exports/org-a/j1/manifest.json'), 'utf8'),
    );
    expect(manifest).toMatchObject({ format: 'jsonl', parts: 3, rows: 2_000, header: false });
  });

  it('a page whose checkpoint never landed runs again and rewrites its own part: no duplicate row', async () => {
    await seedOrders(f.db.data, 2_500);
    const fs = filesystemExportSink({ root: f.root });
    let failed = false;
    const flaky: ExportSink = {
      async write(key, body, options) {
        await fs.write(key, body, options);
        // the part is written, then the step fails before its checkpoint is stored
        if (key.endsWith('part-00001.csv') && !failed) {
          failed = true;
          throw new Error('lost after the write');
        }
      },
    };
    const x = declare({}, flaky);
    await f.start(x.handle);
    await x.handle.enqueue({ orgId: 'org-b', exportId: 'r1' });
    await until('the export to settle', () => x.settled.length > 0);

    expect(completed(x.settled[0])).toMatchObject({ parts: 3, rows: 2_500 });
    expect(x.writes.filter((k) => k.endsWith('part-00000.csv'))).toHaveLength(1);
    expect(x.writes.filter((k) => k.endsWith('part-00001.csv'))).toHaveLength(2);
    const { names, text } = await catParts('exports/org-b/r1');
    expect(names).toHaveLength(3);
    expect(parse(text, { columns: true })).toEqual(await expectedCsv());
  });

  it('rows deleted before a page reruns leave no stale part: the shorter rerun overwrites it', async () => {
    await seedOrders(f.db.data, 2_000);
    const fs = filesystemExportSink({ root: f.root });
    let failed = false;
    const flaky: ExportSink = {
      async write(key, body, options) {
        await fs.write(key, body, options);
        if (key.endsWith('part-00001.csv') && !failed) {
          failed = true;
          // the page's rows leave the source before the step that wrote them reruns
          await f.db.data.query('delete from export_orders where id > 1000');
          throw new Error('lost after the write');
        }
      },
    };
    const x = declare({}, flaky);
    await f.start(x.handle);
    await x.handle.enqueue({ orgId: 'org-b', exportId: 'shrunk' });
    await until('the export to settle', () => x.settled.length > 0);

    expect(completed(x.settled[0])).toMatchObject({ parts: 2, rows: 1_000 });
    const { names, text } = await catParts('exports/org-b/shrunk');
    expect(names).toEqual(['part-00000.csv', 'part-00001.csv']);
    expect(parse(text, { columns: true })).toEqual(await expectedCsv());
  });

  it('a later, smaller export under the same prefix removes the parts past its count: cat part-* is its rows alone', async () => {
    await seedOrders(f.db.data, 2_500);
    const x = declare();
    await f.start(x.handle);
    await x.handle.enqueue({ orgId: 'org-c', exportId: 'daily' });
    await until('the first export to settle', () => x.settled.length > 0);
    expect(completed(x.settled[0])).toMatchObject({ parts: 3, rows: 2_500, staleParts: 0 });
    // the first export's manifest step found part 3 absent at once
    expect(x.removes).toEqual(['exports/org-c/daily/part-00003.csv']);

    await f.db.data.query('delete from export_orders where id > 900');
    x.removes.length = 0;
    await x.handle.enqueue({ orgId: 'org-c', exportId: 'daily' });
    await until('the second export to settle', () => x.settled.length > 1);

    expect(completed(x.settled[1])).toMatchObject({ parts: 1, rows: 900, staleParts: 2 });
    expect(x.removes).toEqual([
      'exports/org-c/daily/part-00001.csv',
      'exports/org-c/daily/part-00002.csv',
      'exports/org-c/daily/part-00003.csv',
    ]);
    // removed after the last part and before the manifest was written
    expect(x.calls.slice(-5)).toEqual([
      'write exports/org-c/daily/part-00000.csv',
      'remove exports/org-c/daily/part-00001.csv',
      'remove exports/org-c/daily/part-00002.csv',
      'remove exports/org-c/daily/part-00003.csv',
      'write exports/org-c/daily/manifest.json',
    ]);
    const { names, text } = await catParts('exports/org-c/daily');
    expect(names).toEqual(['part-00000.csv']);
    expect(parse(text, { columns: true })).toEqual(await expectedCsv());
    const manifest = JSON.parse(
      await readFile(join(f.root, 'exports/org-c/daily/manifest.json'), 'utf8'),
    );
    expect(manifest).toMatchObject({ parts: 1, rows: 900 });
  });

  it("a sink without remove leaves those parts; the manifest counts the later export's own", async () => {
    await seedOrders(f.db.data, 2_500);
    const fs = filesystemExportSink({ root: f.root });
    const writeOnly: ExportSink = { write: (key, body, options) => fs.write(key, body, options) };
    const x = declare({}, writeOnly);
    await f.start(x.handle);
    await x.handle.enqueue({ orgId: 'org-c', exportId: 'kept' });
    await until('the first export to settle', () => x.settled.length > 0);
    await f.db.data.query('delete from export_orders where id > 900');
    await x.handle.enqueue({ orgId: 'org-c', exportId: 'kept' });
    await until('the second export to settle', () => x.settled.length > 1);

    expect(completed(x.settled[1])).toMatchObject({ parts: 1, rows: 900, staleParts: 0 });
    expect(x.removes).toEqual([]);
    const { names } = await catParts('exports/org-c/kept');
    expect(names).toEqual(['part-00000.csv', 'part-00001.csv', 'part-00002.csv']);
    const manifest = JSON.parse(
      await readFile(join(f.root, 'exports/org-c/kept/manifest.json'), 'utf8'),
    );
    expect(manifest).toMatchObject({ parts: 1, rows: 900 });
  });
});
