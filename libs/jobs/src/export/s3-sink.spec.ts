import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { parse } from 'csv-parse/sync';
import S3rver from 's3rver';
import type { DataSource } from 'typeorm';
import type { JobSettled } from '../declare/run-args';
import { t } from '../schema/t';
import { frozenClock } from '../testing/frozen-clock';
import { runJobs, type JobsHarness } from '../testing/run-jobs';
import { testDatabaseUrl } from '../../../../test/test-env';
import { ExportOrder, ordersDataSource, seedOrders } from '../../test/export-orders';
import type { ExportResult } from './export-definition';
import { exportRows } from './export-rows';
import { s3ExportSink, type S3ExportSinkOptions } from './s3-sink';

const BUCKET = 'exports';
let dir: string;
let server: S3rver;
let config: Record<string, unknown>;
let client: S3Client;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 's3rver-'));
  server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: dir,
    configureBuckets: [{ name: BUCKET, configs: [] }],
  });
  const { port } = await server.run();
  config = {
    region: 'us-east-1',
    endpoint: `http://127.0.0.1:${port}`,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    // s3rver predates the SDK's default flexible checksums
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  };
  client = new S3Client(config);
});
afterAll(async () => {
  client?.destroy();
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

async function read(key: string): Promise<Buffer> {
  const got = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
  return Buffer.from(await got.Body!.transformToByteArray());
}

const write = { contentType: 'text/csv; charset=utf-8', signal: new AbortController().signal };

/** A client of the local server that records the name of each command it sends. */
function recordingClient(): { recording: S3Client; commands: string[] } {
  const recording = new S3Client(config);
  const commands: string[] = [];
  recording.middlewareStack.add(
    (next, context) => (args) => {
      commands.push(String(context.commandName));
      return next(args);
    },
    { step: 'initialize' },
  );
  return { recording, commands };
}

describe('s3ExportSink() options', () => {
  it('refuses where they are written what every upload would refuse or ignore: a bucket, client, partSize or queueSize out of range', () => {
    const refused = [
      { bucket: '', client: {} },
      { bucket: BUCKET, client: null },
      { bucket: BUCKET, client: {}, partSize: 1024 * 1024 }, // EntityTooSmall on every page write
      { bucket: BUCKET, client: {}, partSize: 0 }, // the SDK's default, in silence
      { bucket: BUCKET, client: {}, partSize: Number.NaN },
      { bucket: BUCKET, client: {}, queueSize: 0 },
      { bucket: BUCKET, client: {}, queueSize: 1.5 },
    ];
    for (const options of refused) {
      expect(() => s3ExportSink(options as unknown as S3ExportSinkOptions)).toThrow(
        expect.objectContaining({ code: 'X_INVARIANT' }),
      );
    }
    expect(() =>
      s3ExportSink({ bucket: BUCKET, client: {}, partSize: 5 * 1024 * 1024, queueSize: 1 }),
    ).not.toThrow();
  });
});

describe('s3ExportSink() against a local S3-compatible server', () => {
  it('writes a small object in one PUT and a large one as a multipart upload, each readable whole', async () => {
    const { recording, commands } = recordingClient();
    const sink = s3ExportSink({ bucket: BUCKET, client: recording, partSize: 5 * 1024 * 1024 });
    await sink.write('a/small.csv', Buffer.from('id\n1\n'), write);
    expect((await read('a/small.csv')).toString()).toBe('id\n1\n');
    expect(commands).toEqual(['PutObjectCommand']);

    commands.length = 0;
    const large = Buffer.alloc(12 * 1024 * 1024 + 17);
    for (let i = 0; i < large.length; i++) large[i] = 97 + (i % 26);
    await sink.write('a/large.csv', large, write);
    expect(commands).toEqual([
      'CreateMultipartUploadCommand',
      'UploadPartCommand',
      'UploadPartCommand',
      'UploadPartCommand',
      'CompleteMultipartUploadCommand',
    ]);
    const back = await read('a/large.csv');
    expect(back.length).toBe(large.length);
    expect(back.equals(large)).toBe(true);
    recording.destroy();
  });

  it('the client may be the config one is built from', async () => {
    const sink = s3ExportSink({ bucket: BUCKET, client: config });
    await sink.write('c/part-00000.csv', Buffer.from('id\n'), write);
    expect((await read('c/part-00000.csv')).toString()).toBe('id\n');
  });

  it('rewrites a key whole, and an aborted write is refused before anything is sent', async () => {
    const sink = s3ExportSink({ bucket: BUCKET, client });
    await sink.write('b/part-00000.csv', Buffer.from('old\n'), write);
    await sink.write('b/part-00000.csv', Buffer.from('new\n'), write);
    expect((await read('b/part-00000.csv')).toString()).toBe('new\n');
    const aborted = new AbortController();
    aborted.abort(new Error('drained'));
    await expect(
      sink.write('b/part-00001.csv', Buffer.from('never\n'), { ...write, signal: aborted.signal }),
    ).rejects.toThrow('drained');
    const listed = await client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'b/' }));
    expect(listed.Contents?.map((c) => c.Key)).toEqual(['b/part-00000.csv']);
  });

  it('removes a key that is there (HeadObject, then DeleteObject) and answers false for one that is not', async () => {
    const { recording, commands } = recordingClient();
    const sink = s3ExportSink({ bucket: BUCKET, client: recording });
    await sink.write('d/part-00000.csv', Buffer.from('id\n'), write);
    commands.length = 0;
    await expect(sink.remove!('d/part-00000.csv', { signal: write.signal })).resolves.toBe(true);
    expect(commands).toEqual(['HeadObjectCommand', 'DeleteObjectCommand']);
    commands.length = 0;
    await expect(sink.remove!('d/part-00000.csv', { signal: write.signal })).resolves.toBe(false);
    expect(commands).toEqual(['HeadObjectCommand']);
    const listed = await client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'd/' }));
    expect(listed.Contents ?? []).toEqual([]);
    const aborted = new AbortController();
    aborted.abort(new Error('drained'));
    await sink.write('d/part-00001.csv', Buffer.from('id\n'), write);
    commands.length = 0;
    await expect(sink.remove!('d/part-00001.csv', { signal: aborted.signal })).rejects.toThrow(
      'drained',
    );
    expect(commands).toEqual([]);
    recording.destroy();
  });

  describe('as the sink of an export', () => {
    let db: { data: DataSource; drop(): Promise<void> };
    let h: JobsHarness | undefined;
    beforeAll(async () => {
      db = await ordersDataSource(testDatabaseUrl());
    });
    afterAll(async () => {
      await h?.close();
      await db?.drop();
    });

    /** Declares an export of the orders to the bucket as `name`, runs it once under `exportId` and answers its end. */
    async function runExport(
      name: string,
      exportId: string,
    ): Promise<JobSettled<{ exportId: string }, ExportResult> | undefined> {
      const clock = frozenClock(Date.UTC(2026, 5, 1));
      const settled: JobSettled<{ exportId: string }, ExportResult>[] = [];
      const handle = exportRows({
        name,
        input: t.object({ exportId: t.string }),
        tenant: 'none',
        prefix: ({ exportId }) => `exports/${exportId}`,
        source: () => db.data.getRepository(ExportOrder).createQueryBuilder('o'),
        format: 'csv',
        columns: ['id', 'customer'],
        row: (o) => ({ id: o.id, customer: o.customer }),
        sink: () => s3ExportSink({ bucket: BUCKET, client }),
        batch: 500,
        clock,
        onSettled: (s) => void settled.push(s),
      });
      await h?.close();
      h = await runJobs({ jobs: [handle], clock });
      await handle.enqueue({ exportId });
      for (let i = 0; i < 2_000 && settled.length === 0; i++) {
        await new Promise((r) => setTimeout(r, 5));
        await h.advance(100);
      }
      return settled[0];
    }

    it('writes the parts and the manifest to the bucket; the concatenated parts parse to the source rows', async () => {
      await seedOrders(db.data, 1_200);
      const settled = await runExport('orders.export.s3', 's3-1');
      expect(settled).toMatchObject({ outcome: 'completed', result: { parts: 3, rows: 1_200 } });
      const listed = await client.send(
        new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'exports/s3-1/' }),
      );
      expect(listed.Contents?.map((c) => c.Key)).toEqual([
        'exports/s3-1/manifest.json',
        'exports/s3-1/part-00000.csv',
        'exports/s3-1/part-00001.csv',
        'exports/s3-1/part-00002.csv',
      ]);
      const parts = await Promise.all([0, 1, 2].map((i) => read(`exports/s3-1/part-0000${i}.csv`)));
      const rows = await db.data.getRepository(ExportOrder).find({ order: { id: 'ASC' } });
      expect(parse(Buffer.concat(parts).toString(), { columns: true })).toEqual(
        rows.map((o) => ({
          id: String(o.id),
          customer: /^[=@]/.test(o.customer) ? `'${o.customer}` : o.customer,
        })),
      );
      expect(JSON.parse((await read('exports/s3-1/manifest.json')).toString())).toMatchObject({
        parts: 3,
        rows: 1_200,
      });
    });

    it('a later, smaller export under the same prefix removes the parts past its count before its manifest', async () => {
      // after the test above: exports/s3-1 holds parts 0-2 of 1,200 rows and a manifest counting 3
      await db.data.query('delete from export_orders where id > 300');
      const settled = await runExport('orders.export.s3.again', 's3-1');
      expect(settled).toMatchObject({
        outcome: 'completed',
        result: { parts: 1, rows: 300, staleParts: 2 },
      });
      const listed = await client.send(
        new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'exports/s3-1/' }),
      );
      expect(listed.Contents?.map((c) => c.Key)).toEqual([
        'exports/s3-1/manifest.json',
        'exports/s3-1/part-00000.csv',
      ]);
      const text = (await read('exports/s3-1/part-00000.csv')).toString();
      expect((parse(text, { columns: true }) as unknown[]).length).toBe(300);
      expect(JSON.parse((await read('exports/s3-1/manifest.json')).toString())).toMatchObject({
        parts: 1,
        rows: 300,
      });
    });
  });
});
