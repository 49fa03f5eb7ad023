import type { EnqueueRequest } from '../../driver/job-driver';
import { claimOf, type ClaimedJob } from '../../driver/job-row';
import { errorCodeOf } from '../../errors/jobs-error';
import {
  MAX_ACTOR_LENGTH,
  MAX_ATTEMPTS,
  MAX_FREE_TEXT_LENGTH,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  MAX_JOB_NAME_LENGTH,
  MAX_JSON_DEPTH,
  MAX_PRIORITY,
  MAX_QUEUE_NAME_LENGTH,
  MAX_ROW_CONCURRENCY_KEY_LENGTH,
  MAX_STEP_NAME_LENGTH,
  MAX_TENANT_LENGTH,
  MAX_TIME_MS,
  MAX_TRACEPARENT_LENGTH,
  MIN_PRIORITY,
  MIN_TIME_MS,
  TRUNCATION_MARKER,
} from '../../values/bounds';
import type { Harness } from './harness';
import {
  anyText,
  edgeNumber,
  generatedValue,
  loadFastCheck,
  propertyRuns,
  type Fc,
  type GeneratedValue,
} from './values-arbitraries';
import { sanitised, storableText, wholeIn } from './values-oracle';
import { exactText, outcomeCode, prepare, probeJob, stepsOf } from './values-support';

/** A property over a database takes its time: 2,000 cases of a statement or two each. */
const PROPERTY_TIMEOUT_MS = 300_000;

/** Identifier fields of a request: the longest each may be, and whether `''` is stored (as "none"). */
const TEXT_FIELDS = [
  ['idempotencyKey', MAX_IDEMPOTENCY_KEY_LENGTH, true],
  ['tenantId', MAX_TENANT_LENGTH, true],
  ['enqueuedBy', MAX_ACTOR_LENGTH, true],
  ['concurrencyKey', MAX_ROW_CONCURRENCY_KEY_LENGTH, true],
  ['traceparent', MAX_TRACEPARENT_LENGTH, true],
  ['name', MAX_JOB_NAME_LENGTH, false],
  ['queue', MAX_QUEUE_NAME_LENGTH, false],
] as const;

/** Whole-number fields of a request and their ranges. */
const NUMBER_FIELDS = [
  ['priority', MIN_PRIORITY, MAX_PRIORITY],
  ['maxAttempts', 1, MAX_ATTEMPTS],
  ['runAt', MIN_TIME_MS, MAX_TIME_MS],
] as const;

/** Whether JSON the generator built is inside the contract. */
const acceptable = (g: GeneratedValue): boolean => !g.poisoned && g.depth <= MAX_JSON_DEPTH;

/** Strings around every bound: short ones of any content, and long ones (some plain, to be accepted near the limit). */
function boundText(fc: Fc) {
  return fc.oneof(
    { weight: 5, arbitrary: anyText(fc, 24) },
    { weight: 2, arbitrary: anyText(fc, 600) },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 50, maxLength: 600 }) },
  );
}

/** Numbers at the edges of every range the contract states. */
function boundNumber(fc: Fc) {
  const edges = [MIN_PRIORITY, MAX_PRIORITY, MAX_ATTEMPTS, MIN_TIME_MS, MAX_TIME_MS, 2 ** 31, 1];
  return fc.oneof(
    edgeNumber(fc),
    fc.constantFrom(...edges.flatMap((e) => [e - 1, e, e + 1]), Number.NaN, Infinity, -Infinity),
  );
}

/** Enqueues `request`; answers the row that holds it, or the code of the refusal. */
async function enqueueAndRead(h: Harness, request: EnqueueRequest) {
  try {
    const result = await h.driver().enqueue(request);
    return { row: await h.driver().get(result.id) };
  } catch (error) {
    return { code: errorCodeOf(error) };
  }
}

/** A running row that rotates every `every` uses, so a step load never reads a long list. */
function rotatingRow(h: Harness, every: number): () => Promise<ClaimedJob> {
  let row: ClaimedJob | undefined;
  let uses = 0;
  return async () => {
    if (row === undefined || ++uses % every === 0) row = await h.running();
    return row;
  };
}

/**
 * Properties of the value contract, ≥ 2,000 generated cases each: every value is refused with the coded error the
 * contract names, or stored and read back exactly — on every driver, checked against an independent reading of the
 * rules (`values-oracle`). fast-check is loaded only when this registers.
 */
export function valuesPropertiesSuite(h: Harness): void {
  describe('value contract: properties', () => {
    const runs = propertyRuns();

    it(
      'any string in an identifier field: X_VALUE_INVALID exactly when the contract says, else stored unchanged',
      async () => {
        const fc = loadFastCheck();
        const field = fc.constantFrom(...TEXT_FIELDS);
        await fc.assert(
          fc.asyncProperty(field, boundText(fc), async ([name, max, empty], text) => {
            const answer = await enqueueAndRead(
              h,
              h.request({ [name]: text } as Partial<EnqueueRequest>),
            );
            if (!storableText(text, max, empty))
              return expect(answer).toEqual({ code: 'X_VALUE_INVALID' });
            expect(answer.row?.[name]).toBe(text);
          }),
          { numRuns: runs },
        );
      },
      PROPERTY_TIMEOUT_MS,
    );

    it(
      'any JSON as an input: refused alike by core and the driver, or replayed with the same text (key order, own __proto__, NUL, lone surrogates)',
      async () => {
        const fc = loadFastCheck();
        const handle = probeJob({ freshKeys: true });
        await fc.assert(
          fc.asyncProperty(generatedValue(fc), async (g) => {
            const core = await outcomeCode(() => prepare(h, handle, g.value));
            const answer = await enqueueAndRead(h, h.request({ input: g.value as never }));
            if (!acceptable(g)) {
              expect([core, answer]).toEqual(['X_JOB_INPUT_INVALID', { code: 'X_VALUE_INVALID' }]);
              return;
            }
            expect(core).toBe('resolved');
            expect(exactText(answer.row?.input)).toBe(JSON.stringify(g.value));
          }),
          { numRuns: runs },
        );
      },
      PROPERTY_TIMEOUT_MS,
    );

    it(
      'any JSON as a step output: X_VALUE_INVALID when outside the contract, else loaded back with the same text',
      async () => {
        const fc = loadFastCheck();
        const running = rotatingRow(h, 25);
        let n = 0;
        await fc.assert(
          fc.asyncProperty(generatedValue(fc), async (g) => {
            const row = await running();
            const name = `out:${++n}`;
            const step = {
              name,
              output: g.value as never,
              attempt: 1,
              startedAt: 0,
              completedAt: 0,
            };
            const saved = await outcomeCode(() =>
              h.driver().steps.save(row.id, claimOf(row), step),
            );
            if (!acceptable(g)) return expect(saved).toBe('X_VALUE_INVALID');
            expect(saved).toBe('resolved');
            const loaded = (await h.driver().steps.load(row.id)).find((s) => s.name === name);
            expect(exactText(loaded?.output)).toBe(JSON.stringify(g.value));
          }),
          { numRuns: runs },
        );
      },
      PROPERTY_TIMEOUT_MS,
    );

    it(
      'numbers at the edges: X_VALUE_INVALID outside each whole-number range, else stored unchanged',
      async () => {
        const fc = loadFastCheck();
        const field = fc.constantFrom(...NUMBER_FIELDS);
        await fc.assert(
          fc.asyncProperty(field, boundNumber(fc), async ([name, min, max], value) => {
            const answer = await enqueueAndRead(
              h,
              h.request({ [name]: value } as Partial<EnqueueRequest>),
            );
            if (!wholeIn(value, min, max))
              return expect(answer).toEqual({ code: 'X_VALUE_INVALID' });
            // === on purpose: -0 is stored as 0 (an integer column has no sign of zero)
            expect(answer.row?.[name] === value).toBe(true);
          }),
          { numRuns: runs },
        );
      },
      PROPERTY_TIMEOUT_MS,
    );

    it(
      'any string as a step name: refused before the step runs, or run once and replayed from storage',
      async () => {
        const fc = loadFastCheck();
        const running = rotatingRow(h, 25);
        let n = 0;
        await fc.assert(
          fc.asyncProperty(boundText(fc), async (text) => {
            const row = await running();
            const name = `${++n}:${text}`;
            let calls = 0;
            const first = await outcomeCode(() => stepsOf(h, row).run(name, () => ++calls));
            if (!storableText(name, MAX_STEP_NAME_LENGTH, false)) {
              return expect([first, calls]).toEqual(['X_VALUE_INVALID', 0]);
            }
            expect([first, calls]).toEqual(['resolved', 1]);
            expect(await stepsOf(h, row).run(name, () => ++calls)).toBe(1);
            expect(calls).toBe(1);
          }),
          { numRuns: runs },
        );
      },
      PROPERTY_TIMEOUT_MS,
    );

    it(
      'any string as a progress note: stored with NUL and lone surrogates replaced, cut to the bound with the marker',
      async () => {
        const fc = loadFastCheck();
        const row = await h.running();
        const text = fc.oneof(
          { weight: 8, arbitrary: anyText(fc, 40) },
          { weight: 1, arbitrary: anyText(fc, 9_000) },
        );
        await fc.assert(
          fc.asyncProperty(text, async (note) => {
            await h.driver().recordProgress(row.id, claimOf(row), { done: 1, total: 2, note });
            const stored = (await h.driver().get(row.id))?.progress?.note ?? '';
            expectFreeText(stored, note);
          }),
          { numRuns: runs },
        );
      },
      PROPERTY_TIMEOUT_MS,
    );
  });
}

/** `stored` is `given` sanitised — whole, or cut to the bound and ending with the marker. */
export function expectFreeText(stored: string, given: string): void {
  const clean = sanitised(given);
  if (clean.length <= MAX_FREE_TEXT_LENGTH) return expect(stored).toBe(clean);
  expect(stored.length).toBeLessThanOrEqual(MAX_FREE_TEXT_LENGTH);
  const cut = stored.indexOf(TRUNCATION_MARKER);
  expect(cut).toBeGreaterThan(0);
  expect(clean.startsWith(stored.slice(0, cut))).toBe(true);
}
