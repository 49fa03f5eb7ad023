import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { encodePage, type ExportEncoding } from './export-encode';
import { filesystemExportSink } from './filesystem-sink';

type Row = Record<string, unknown>;
const encoding = (extra: Partial<ExportEncoding<Row>> = {}): ExportEncoding<Row> => ({
  name: 'encode.spec',
  format: 'csv',
  columns: ['a', 'b'],
  row: (r) => r,
  batch: 10,
  maxPartBytes: 1_000_000,
  ...extra,
});

describe('encodePage()', () => {
  it('defuses every formula lead of a string cell, and only of strings', () => {
    const leads = ['=1+1', '+1', '-1', '@A1', '\tx', '\rx'];
    const rows = leads.map((a) => ({ a, b: -1 }));
    const text = encodePage(encoding(), 1, rows).toString();
    const parsed = parse(text) as string[][];
    expect(parsed.map((r) => r[0])).toEqual(leads.map((l) => `'${l}`));
    expect(parsed.map((r) => r[1])).toEqual(leads.map(() => '-1'));
  });

  it('writes bigint, boolean, Date, null and a missing column as cells; the header only on page 0', () => {
    const at = new Date(Date.UTC(2026, 0, 2, 3, 4, 5));
    const rows = [{ a: 12n, b: true }, { a: at, b: null }, { a: 'only a' }];
    expect(encodePage(encoding(), 0, rows).toString()).toBe(
      'a,b\n12,true\n2026-01-02T03:04:05.000Z,\nonly a,\n',
    );
    expect(encodePage(encoding({ format: 'jsonl' }), 0, rows).toString()).toBe(
      '{"a":"12","b":true}\n{"a":"2026-01-02T03:04:05.000Z","b":null}\n{"a":"only a","b":null}\n',
    );
  });

  it("reads a row's own cells only: a column named as Object's members is empty when left out, and a JSON key", () => {
    const columns = ['id', 'constructor', 'toString', '__proto__'];
    const row = JSON.parse('{"id":1,"__proto__":"x"}') as Row;
    expect(encodePage(encoding({ columns }), 1, [row]).toString()).toBe('1,,,x\n');
    expect(encodePage(encoding({ columns, format: 'jsonl' }), 1, [row]).toString()).toBe(
      '{"id":1,"constructor":null,"toString":null,"__proto__":"x"}\n',
    );
  });

  it('refuses a value that is no cell and a row that is no object', () => {
    for (const a of [{}, [1], () => 1, Number.NaN, Infinity, new Date(Number.NaN), Symbol('s')]) {
      expect(() => encodePage(encoding(), 0, [{ a }])).toThrow(
        expect.objectContaining({ code: 'X_EXPORT_ROW_INVALID' }),
      );
    }
    for (const row of [null, 'text', [1, 2]]) {
      expect(() => encodePage(encoding({ row: () => row }), 0, [{}])).toThrow(
        expect.objectContaining({ code: 'X_EXPORT_ROW_INVALID' }),
      );
    }
  });

  it('stops at maxPartBytes with the rows and bytes it reached, and a batch that fits', () => {
    const rows = Array.from({ length: 10 }, (_, i) => ({ a: 'x'.repeat(95), b: i }));
    let thrown: unknown;
    try {
      encodePage(encoding({ maxPartBytes: 500 }), 3, rows);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({
      code: 'X_EXPORT_PART_TOO_LARGE',
      meta: { page: 3, batch: 10, rows: 6, bytes: 588, maxPartBytes: 500, suggestedBatch: 4 },
    });
    const { suggestedBatch } = (thrown as { meta: { suggestedBatch: number } }).meta;
    expect(
      encodePage(encoding({ maxPartBytes: 500 }), 3, rows.slice(0, suggestedBatch)).length,
    ).toBeLessThanOrEqual(500);
  });
});

describe('encodePage(): the maxPartBytes bound', () => {
  it('takes a part of exactly maxPartBytes, and refuses one a byte over', () => {
    const rows = Array.from({ length: 3 }, () => ({ a: 'xxxx', b: 1 })); // 'xxxx,1\n': 7 bytes each
    expect(encodePage(encoding({ maxPartBytes: 21 }), 1, rows)).toHaveLength(21);
    expect(() => encodePage(encoding({ maxPartBytes: 20 }), 1, rows)).toThrow(
      expect.objectContaining({ code: 'X_EXPORT_PART_TOO_LARGE' }),
    );
  });
});

describe('filesystemExportSink()', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'export-sink-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });
  const options = { contentType: 'text/csv', signal: new AbortController().signal };

  it('rewrites a key whole and leaves no temporary file', async () => {
    const sink = filesystemExportSink({ root });
    await sink.write('x/part-00000.csv', Buffer.from('old\n'), options);
    await sink.write('x/part-00000.csv', Buffer.from('new\n'), options);
    expect(await readFile(join(root, 'x/part-00000.csv'), 'utf8')).toBe('new\n');
    expect(await readdir(join(root, 'x'))).toEqual(['part-00000.csv']);
  });

  it('refuses a key outside its root, and an aborted write leaves nothing', async () => {
    const sink = filesystemExportSink({ root, fsync: false });
    await expect(sink.write('../escape.csv', Buffer.from('x'), options)).rejects.toMatchObject({
      code: 'X_INVARIANT',
    });
    const aborted = new AbortController();
    aborted.abort(new Error('drained'));
    await expect(
      sink.write('y/part-00000.csv', Buffer.from('x'), { ...options, signal: aborted.signal }),
    ).rejects.toThrow('drained');
    expect(await readdir(join(root, 'y'))).toEqual([]);
  });

  it('removes a key it holds, answers false for one it does not, and refuses one outside its root', async () => {
    const sink = filesystemExportSink({ root, fsync: false });
    const signal = options.signal;
    await sink.write('z/part-00000.csv', Buffer.from('x'), options);
    await expect(sink.remove!('z/part-00000.csv', { signal })).resolves.toBe(true);
    expect(await readdir(join(root, 'z'))).toEqual([]);
    await expect(sink.remove!('z/part-00000.csv', { signal })).resolves.toBe(false);
    await expect(sink.remove!('none/part-00000.csv', { signal })).resolves.toBe(false);
    await expect(sink.remove!('../escape.csv', { signal })).rejects.toMatchObject({
      code: 'X_INVARIANT',
    });
    await sink.write('z/part-00001.csv', Buffer.from('x'), options);
    const aborted = new AbortController();
    aborted.abort(new Error('drained'));
    await expect(sink.remove!('z/part-00001.csv', { signal: aborted.signal })).rejects.toThrow(
      'drained',
    );
    expect(await readdir(join(root, 'z'))).toEqual(['part-00001.csv']);
  });
});
