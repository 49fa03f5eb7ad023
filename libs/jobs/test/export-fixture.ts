import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DataSource } from 'typeorm';
import type { AnyJobHandle } from '../src/declare/handle';
import type { JobSettled } from '../src/declare/run-args';
import type { ExportDefinition, ExportResult } from '../src/export/export-definition';
import { exportRows } from '../src/export/export-rows';
import type { ExportSink, ExportSinkRemoveOptions } from '../src/export/export-sink';
import { filesystemExportSink } from '../src/export/filesystem-sink';
import { t } from '../src/schema/t';
import { frozenClock } from '../src/testing/frozen-clock';
import { runJobs, type JobsHarness } from '../src/testing/run-jobs';
import { testDatabaseUrl } from '../../../test/test-env';
import { ExportOrder, ordersDataSource } from './export-orders';

/** The export specs' input: the tenant and the export's id, both in the prefix. */
export const INPUT = t.object({ orgId: t.string, exportId: t.string });
/** What `INPUT` parses to. */
export type Input = { orgId: string; exportId: string };
/** The columns the export specs write. */
export type Columns = 'id' | 'customer' | 'cents' | 'note';
/** `Columns` in the order they are written. */
export const COLUMNS: readonly Columns[] = ['id', 'customer', 'cents', 'note'];
/** The clock every export spec's jobs and exports run on. */
export const clock = frozenClock(Date.UTC(2026, 5, 1));

/** A result when `s` completed, else undefined. */
export const completed = (s: JobSettled<Input, ExportResult> | undefined) =>
  s?.outcome === 'completed' ? s.result : undefined;

/**
 * The orders table in a schema of its own, a temporary directory for the filesystem sink each test, and the harness a
 * test starts (closed after it). Registers its hooks in the calling spec file.
 */
export function exportFixture() {
  let db: { data: DataSource; drop(): Promise<void> };
  let root: string;
  let h: JobsHarness | undefined;
  let seq = 0;

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

  const turn = async (): Promise<void> => {
    await new Promise((r) => setTimeout(r, 2));
    await h?.advance(100);
  };

  return {
    /** The orders' DataSource. */
    get db(): { data: DataSource } {
      return db;
    },
    /** The test's temporary directory. */
    get root(): string {
      return root;
    },
    /** Starts the jobs on `clock`; the harness is closed after the test. */
    async start(handle: AnyJobHandle): Promise<JobsHarness> {
      h = await runJobs({ jobs: [handle], clock });
      return h;
    },
    /** Turns the clock until `done` answers true (a bounded number of turns). */
    async until(what: string, done: () => boolean): Promise<void> {
      for (let i = 0; i < 5_000; i++) {
        if (done()) return;
        await turn();
      }
      throw new Error(`never: ${what}`);
    },
    /**
     * An export of the orders table to `sink` (default the temp dir), counting each key it writes and each it asks
     * the sink to remove (when the sink can), and both in order (`calls`).
     */
    declare(
      extra: Partial<ExportDefinition<typeof INPUT, ExportOrder, Columns>> = {},
      sink: ExportSink = filesystemExportSink({ root }),
    ) {
      const settled: JobSettled<Input, ExportResult>[] = [];
      const writes: string[] = [];
      const removes: string[] = [];
      /** Both, in the order asked: `write <key>`, `remove <key>`. */
      const calls: string[] = [];
      const remove = sink.remove?.bind(sink);
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
          write: (key, body, options) => (
            writes.push(key),
            calls.push(`write ${key}`),
            sink.write(key, body, options)
          ),
          ...(remove && {
            remove: (key: string, options: ExportSinkRemoveOptions) => (
              removes.push(key),
              calls.push(`remove ${key}`),
              remove(key, options)
            ),
          }),
        },
        clock,
        retry: { attempts: 3, backoff: 'fixed', delay: 100, jitter: false },
        onSettled: (s) => void settled.push(s),
        ...extra,
      });
      return { handle, settled, writes, removes, calls };
    },
    /** Every part of `prefix`, in glob order, concatenated as `cat part-*` would. */
    async catParts(prefix: string): Promise<{ names: string[]; text: string }> {
      const dir = join(root, prefix);
      const names = (await readdir(dir)).filter((n) => n.startsWith('part-')).sort();
      const texts = await Promise.all(names.map((n) => readFile(join(dir, n), 'utf8')));
      return { names, text: texts.join('') };
    },
    /** What the source holds, as the CSV cells the export must write (a formula lead defused, a negative kept). */
    async expectedCsv(): Promise<Record<Columns, string>[]> {
      const rows = await db.data.getRepository(ExportOrder).find({ order: { id: 'ASC' } });
      const text = (s: string | null) => (s === null ? '' : /^[=+\-@\t\r]/.test(s) ? `'${s}` : s);
      return rows.map((o) => ({
        id: String(o.id),
        customer: text(o.customer),
        cents: String(o.cents),
        note: text(o.note),
      }));
    },
  };
}
