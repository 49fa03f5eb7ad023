import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Inject, Injectable } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { parse } from 'csv-parse/sync';
import { DataSource } from 'typeorm';
import { memoryJobDriver } from '../driver/memory';
import { JobsModule } from '../nest';
import { t } from '../schema/t';
import { frozenClock } from '../testing/frozen-clock';
import { testDatabaseUrl } from '../../../../test/test-env';
import { ExportOrder, ordersDataSource, seedOrders } from '../../test/export-orders';
import type { ExportSourceArgs } from './export-definition';
import { exportRows } from './export-rows';
import { ExportSource } from './export-source.decorator';
import { filesystemExportSink } from './filesystem-sink';

const clock = frozenClock(Date.UTC(2026, 5, 1));
let root = '';
const input = t.object({ minCents: t.number });

/** Declared without a source: the provider below reads for it through its injected DataSource. */
const richOrders = exportRows({
  name: 'orders.export.decorated',
  input,
  tenant: 'none',
  prefix: ({ minCents }) => `exports/rich-${minCents}`,
  format: 'csv',
  columns: ['id', 'cents'],
  row: (o: ExportOrder) => ({ id: o.id, cents: o.cents }),
  sink: () => filesystemExportSink({ root }),
  batch: 40,
  clock,
});

@Injectable()
class RichOrdersSource {
  calls = 0;
  constructor(@Inject(DataSource) private readonly data: DataSource) {}

  @ExportSource(richOrders)
  orders({ input: { minCents } }: ExportSourceArgs<{ minCents: number }>) {
    this.calls++;
    return this.data
      .getRepository(ExportOrder)
      .createQueryBuilder('o')
      .where('o.cents >= :minCents', { minCents });
  }
}

let db: { data: DataSource; drop(): Promise<void> };
beforeAll(async () => {
  db = await ordersDataSource(testDatabaseUrl());
  await seedOrders(db.data, 200);
  root = await mkdtemp(join(tmpdir(), 'export-nest-'));
});
afterAll(async () => {
  await db?.drop();
  await rm(root, { recursive: true, force: true });
});

describe('@ExportSource on a Nest provider', () => {
  let app: TestingModule | undefined;
  afterEach(async () => {
    await app?.close();
  });

  it('binds the provider method as the source: its injected DataSource is read page by page', async () => {
    app = await Test.createTestingModule({
      imports: [
        JobsModule.forRoot({
          driver: memoryJobDriver({ clock }),
          clock,
          roles: ['worker'],
          retention: false,
        }),
      ],
      providers: [{ provide: DataSource, useValue: db.data }, RichOrdersSource],
    }).compile();
    await app.init();

    await richOrders.enqueue({ minCents: 10_000 });
    for (let i = 0; i < 2_000; i++) {
      const manifest = await readFile(join(root, 'exports/rich-10000/manifest.json'), 'utf8').catch(
        () => null,
      );
      if (manifest !== null) break;
      await clock.advance(50);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    const expected = await db.data.query<{ id: number; cents: number }[]>(
      'select id, cents from export_orders where cents >= 10000 order by id',
    );
    const manifest = JSON.parse(
      await readFile(join(root, 'exports/rich-10000/manifest.json'), 'utf8'),
    );
    // every full page, then the short (here: empty) one that ends the export
    const pages = Math.floor(expected.length / 40) + 1;
    expect(manifest).toMatchObject({
      rows: expected.length,
      parts: pages,
    });
    const parts = await Promise.all(
      Array.from({ length: manifest.parts }, (_, i) =>
        readFile(join(root, `exports/rich-10000/part-0000${i}.csv`), 'utf8'),
      ),
    );
    expect(parse(parts.join(''), { columns: true })).toEqual(
      expected.map((r) => ({ id: String(r.id), cents: String(r.cents) })),
    );
    expect(app.get(RichOrdersSource).calls).toBe(pages);
  });

  it('refuses a handle that was declared with a source', () => {
    const inline = exportRows({
      name: 'orders.export.inline',
      input,
      tenant: 'none',
      prefix: () => 'exports/inline',
      source: () => db.data.getRepository(ExportOrder).createQueryBuilder('o'),
      format: 'jsonl',
      columns: ['id'],
      row: (o) => ({ id: o.id }),
      sink: () => filesystemExportSink({ root }),
    });
    expect(() => {
      class Twice {
        @ExportSource(inline)
        orders() {
          return db.data.getRepository(ExportOrder).createQueryBuilder('o');
        }
      }
      return Twice;
    }).toThrow(expect.objectContaining({ code: 'X_INVARIANT' }));
  });
});
