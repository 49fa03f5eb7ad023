import { randomUUID } from 'node:crypto';
import type { EnqueueRequest } from '@ultimat3/jobs';
import { resetJobTables } from '../../test/test-database';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { request } from '../../test/requests';
import { pgPoolExecutor } from '../executor/pg-pool-executor';
import { postgresJobDriver } from './pg-driver';
import {
  arrayLiteral,
  batchParams,
  columnLiteral,
  inputLines,
  textArray,
  uuidArray,
} from './pg-batch-params';

/** Strings an array literal must quote or escape. */
const AWKWARD = [
  'plain',
  '',
  'with,comma',
  '{braces}',
  '"double" quotes',
  'back\\slash',
  '\\"',
  'NULL',
  ' white space ',
  'new\nline',
  'ünïcødé ✓ 😀',
];

describe('batch parameters as the server reads them', () => {
  const db = pgJobsSpec();

  const readBack = async (literal: string): Promise<(string | null)[]> => {
    const { rows } = await db.executor.query<{ a: (string | null)[] }>('select $1::text[] as a', [
      literal,
    ]);
    return rows[0]?.a ?? [];
  };

  it('reads an array literal back element for element, nulls included', async () => {
    const values = [...AWKWARD, null, undefined];
    expect(await readBack(arrayLiteral(values))).toEqual([...AWKWARD, null, null]);
  });

  it('sends a column of one value throughout as that one value, whatever it holds', async () => {
    for (const value of [...AWKWARD, null]) {
      expect(await readBack(columnLiteral([value, value, value]))).toEqual([value]);
      expect(await readBack(arrayLiteral([value, value]))).toEqual([value, value]);
    }
    expect(await readBack(columnLiteral([7, 7]))).toEqual(['7']);
    expect(await readBack(columnLiteral([7, 8]))).toEqual(['7', '8']);
    expect(await readBack(columnLiteral([null, undefined]))).toEqual([null, null]);
    expect(await readBack(arrayLiteral([]))).toEqual([]);
    expect(await readBack(columnLiteral([]))).toEqual([]);
  });

  it('builds an empty batch’s parameters as empty columns', async () => {
    const { rows } = await db.executor.query<{ n: number[] }>(
      `select array[
         cardinality($1::uuid[]), cardinality($2::uuid[]), cardinality($3::text[]), cardinality($4::text[]),
         length($5::text), cardinality($6::text[]), cardinality($7::text[]), cardinality($8::text[]),
         cardinality($9::timestamptz[]), cardinality($10::int[]), cardinality($11::int[]),
         cardinality($12::text[]), cardinality($13::text[]), cardinality($14::text[])
       ] as n`,
      batchParams([]),
    );
    expect(rows[0]?.n).toEqual(new Array<number>(14).fill(0));
  });

  it.each([
    ['a shared pool (the optimistic insert)', true],
    ['an unshared executor (the conflict-tolerant insert)', false],
  ])(
    'stores each request’s own values whether a column is one value throughout or not, over %s',
    async (_, isShared) => {
      await resetJobTables(db.executor);
      const driver = postgresJobDriver({ executor: pgPoolExecutor(db.pool, { shared: isShared }) });
      const at = Date.now();
      const shared = { name: 'same "name"', queue: 'q,1', tenantId: null, runAt: at, priority: 3 };
      const uniform = Array.from({ length: 3 }, () => request(shared));
      const mixed = [
        request({ ...shared, tenantId: 't', enqueuedBy: 'a\\b', traceparent: null }),
        request({ ...shared, tenantId: null, runAt: at + 60_000, priority: -1, maxAttempts: 9 }),
        request({ ...shared, tenantId: 'NULL', concurrencyKey: 'c', crossTenantReason: 'why' }),
        request({ ...shared, name: 'other', queue: 'q,2', enqueuedBy: null }),
      ];
      const single = [request({ tenantId: 'alone', priority: 7 })];
      for (const batch of [uniform, mixed, single]) {
        expect(await driver.enqueueMany(batch)).toEqual(
          batch.map((r) => ({ id: r.id, runId: r.runId, deduped: false })),
        );
        for (const r of batch) {
          const row = await driver.get(r.id);
          expect(row).toMatchObject({
            name: r.name,
            queue: r.queue,
            tenantId: r.tenantId,
            enqueuedBy: r.enqueuedBy,
            priority: r.priority,
            maxAttempts: r.maxAttempts,
            concurrencyKey: r.concurrencyKey,
            crossTenantReason: r.crossTenantReason ?? null,
            state: r.runAt > at + 1_000 ? 'delayed' : 'ready',
          });
          expect(row?.runAt).toBe(r.runAt);
        }
      }
    },
  );

  it('sends ids as a binary uuid[] the server reads back id for id, in order', async () => {
    const ids = [
      '00000000-0000-0000-0000-000000000000',
      'ffffffff-ffff-ffff-ffff-ffffffffffff',
      '0123abcd-4567-89ef-fedc-ba9876543210',
      ...Array.from({ length: 500 }, () => randomUUID()),
    ];
    for (const batch of [ids, ids.slice(0, 1), []]) {
      const { rows } = await db.executor.query<{ a: string[]; n: number }>(
        'select $1::uuid[]::text[] as a, cardinality($1::uuid[]) as n',
        [uuidArray(batch)],
      );
      expect(rows[0]).toEqual({ a: batch, n: batch.length });
    }
  });

  it('sends a binary text[] the server reads back element for element, nulls and every UTF-8 length included', async () => {
    const long = 'ü😀\u2028'.repeat(700); // 2-, 4- and 3-byte characters, 6,300 bytes
    const values = [
      ...AWKWARD,
      null,
      long,
      'ascii, then ü😀',
      '\u007f',
      '\u0080',
      '\u00ff',
      '\uffff',
      '\u{10ffff}',
      null,
    ];
    for (const batch of [values, [long], [null], ['only'], []]) {
      const { rows } = await db.executor.query<{ a: (string | null)[]; n: number }>(
        'select $1::text[] as a, cardinality($1::text[]) as n',
        [textArray(batch)],
      );
      expect(rows[0]).toEqual({ a: batch, n: batch.length });
    }
  });

  it('builds each binary array byte for byte as the server sends the same array (header: one dimension from 1, null flag, element type)', async () => {
    const ids = ['00000000-0000-0000-0000-000000000000', randomUUID(), randomUUID()];
    const texts = ['a', 'ü😀', null, ''];
    // an empty array the server sends with no dimension at all: those are checked read back above
    for (const batch of [ids, ids.slice(0, 1)]) {
      const { rows } = await db.executor.query<{ b: Buffer }>(
        'select array_send($1::uuid[]) as b',
        [batch],
      );
      expect(uuidArray(batch).toString('hex')).toBe(rows[0]?.b.toString('hex'));
    }
    for (const batch of [texts, texts.filter((t) => t !== null), [null], ['only']]) {
      const { rows } = await db.executor.query<{ b: Buffer }>(
        'select array_send($1::text[]) as b',
        [batch],
      );
      expect(textArray(batch).toString('hex')).toBe(rows[0]?.b.toString('hex'));
    }
  });

  it('refuses a text[] element holding NUL with the error a text parameter gets (the value contract refuses it before)', async () => {
    await expect(
      db.executor.query('select $1::text[] as a', [textArray(['ok', 'nul\u0000here'])]),
    ).rejects.toMatchObject({ code: '22021' });
    await expect(
      db.executor.query('select $1::text as a', ['nul\u0000here']),
    ).rejects.toMatchObject({
      code: '22021',
    });
  });

  it.each([
    ['upper case', '0123ABCD-4567-89ef-fedc-ba9876543210'],
    ['no dashes', '0123abcd456789effedcba9876543210'],
    ['a dash out of place', '0123abc-d4567-89ef-fedc-ba9876543210'],
    ['a non-hex digit', '0123abcd-4567-89ef-fedc-ba987654321g'],
    ['a character past ASCII', '0123abcd-4567-89ef-fedc-ba987654321\u00e9'],
    ['one character short', '0123abcd-4567-89ef-fedc-ba987654321'],
    ['one character too long', '0123abcd-4567-89ef-fedc-ba9876543210a'],
    ['a hex digit where a dash belongs', '0123abcda4567-89ef-fedc-ba9876543210'],
    ['a non-hex digit first in its byte', 'g123abcd-4567-89ef-fedc-ba9876543210'],
  ])('refuses an id that is not a canonical lower-case UUID (%s)', (_, id) => {
    expect(() => uuidArray([randomUUID(), id])).toThrow(TypeError);
  });

  it('splits the inputs text into exactly one JSON text per request', async () => {
    const inputs = [
      { s: 'line\nfeed\r\n', t: '\u2028\u2029', u: '\u0000', q: '"\\' },
      'new\nline',
      ['', null, 0],
      null,
      {},
    ];
    const requests: EnqueueRequest[] = inputs.map((input) =>
      request({ input: input as EnqueueRequest['input'] }),
    );
    const { rows } = await db.executor.query<{ t: string }>(
      `select t from unnest(string_to_array($1::text, E'\\n')) with ordinality as x(t, i) order by i`,
      [inputLines(requests)],
    );
    expect(rows.map((r) => JSON.parse(r.t) as unknown)).toEqual(inputs);
    // each line is the request's JSON text exactly, nothing before or after it
    expect(rows.map((r) => r.t)).toEqual(inputs.map((input) => JSON.stringify(input)));
  });
});
