import type { EnqueueRequest, JobDriver } from '../../driver/job-driver';
import { claimOf, type ClaimedJob } from '../../driver/job-row';
import { memoryJobDriver } from '../../driver/memory';
import { errorCodeOf } from '../../errors/jobs-error';
import { useHarness, type MakeConformanceDriver } from './harness';
import {
  anyText,
  edgeNumber,
  generatedValue,
  loadFastCheck,
  propertyRuns,
} from './values-arbitraries';
import { exactText } from './values-support';

/** What a driver answered for one value: the code it refused with, or what it read back (as exact text). */
type Answer = { readonly code: string | undefined } | { readonly stored: string | undefined };

const answerOf = async (run: () => Promise<unknown>): Promise<Answer> => {
  try {
    return { stored: exactText(await run()) };
  } catch (error) {
    return { code: errorCodeOf(error) };
  }
};

const TEXT_FIELDS = [
  'idempotencyKey',
  'tenantId',
  'enqueuedBy',
  'concurrencyKey',
  'traceparent',
  'name',
  'queue',
] as const;
const NUMBER_FIELDS = ['priority', 'maxAttempts', 'runAt'] as const;
const STEP_QUEUE = 'agreement-steps';
const TIMEOUT_MS = 300_000;

/** Enqueues `request` and reads back `pick` of the row that holds it. */
const readBack =
  (driver: JobDriver, request: EnqueueRequest, pick: (row: Record<string, unknown>) => unknown) =>
  async (): Promise<unknown> => {
    const { id } = await driver.enqueue(request);
    const row = (await driver.get(id)) as Record<string, unknown> | undefined;
    // -0 and 0 are one number to every column: compare what a reader can tell apart
    const value = row === undefined ? undefined : pick(row);
    return value === 0 ? 0 : value;
  };

/**
 * The drivers agree: for every generated value — any string in each identifier field, any JSON as an input or a step
 * output, numbers at the edges, any `list()` state — `makeDriver`'s driver gives the memory driver's answer: the same
 * code, or the same value read back. ≥ 2,000 generated cases per property (see `jobDriverConformance`'s properties
 * for the answers themselves). Call it from a driver's own spec, beside `jobDriverConformance`.
 */
export function jobDriverAgreement(name: string, makeDriver: MakeConformanceDriver): void {
  loadFastCheck(); // X_PEER_MISSING at registration when fast-check is not installed
  describe(`value contract: ${name} answers as the memory driver does`, () => {
    const h = useHarness(makeDriver);
    let memory: JobDriver;
    beforeEach(() => {
      memory = memoryJobDriver({ clock: h.clock() });
    });
    const both = async (
      answer: (driver: JobDriver) => Promise<Answer>,
    ): Promise<[Answer, Answer]> => [await answer(h.driver()), await answer(memory)];

    it(
      'any string in an identifier field',
      async () => {
        const fc = loadFastCheck();
        const text = fc.oneof(anyText(fc, 24), anyText(fc, 600));
        await fc.assert(
          fc.asyncProperty(fc.constantFrom(...TEXT_FIELDS), text, async (field, value) => {
            const request = h.request({ [field]: value } as Partial<EnqueueRequest>);
            const [tested, reference] = await both((d) =>
              answerOf(readBack(d, request, (row) => row[field])),
            );
            expect(tested).toEqual(reference);
          }),
          { numRuns: propertyRuns() },
        );
      },
      TIMEOUT_MS,
    );

    it(
      'any JSON as an input, and numbers at the edges',
      async () => {
        const fc = loadFastCheck();
        const input = generatedValue(fc).map((g) => ({ input: g.value }));
        const number = fc
          .tuple(
            fc.constantFrom(...NUMBER_FIELDS),
            fc.oneof(edgeNumber(fc), fc.constant(Number.NaN)),
          )
          .map(([field, value]) => ({ [field]: value }));
        await fc.assert(
          fc.asyncProperty(fc.oneof(input, number), async (overrides) => {
            const request = h.request(overrides as Partial<EnqueueRequest>);
            const field = Object.keys(overrides)[0] as string;
            const [tested, reference] = await both((d) =>
              answerOf(readBack(d, request, (row) => row[field])),
            );
            expect(tested).toEqual(reference);
          }),
          { numRuns: propertyRuns() },
        );
      },
      TIMEOUT_MS,
    );

    it(
      'any JSON as a step output',
      async () => {
        const fc = loadFastCheck();
        // one running row per driver takes 25 steps, so a case costs a save and a load
        const rows = new Map<JobDriver, ClaimedJob>();
        const running = async (d: JobDriver, n: number): Promise<ClaimedJob> => {
          const held = rows.get(d);
          if (held !== undefined && n % 25 !== 0) return held;
          await d.enqueue(h.request({ id: h.newId(), queue: STEP_QUEUE }));
          const [row] = await d.claim({
            workerId: 'agreement',
            visibilityTimeoutMs: 30_000,
            slots: [{ queue: STEP_QUEUE, limit: 1 }],
          });
          if (row === undefined) throw new Error('agreement: the step row was not claimed');
          rows.set(d, row);
          return row;
        };
        let n = 0;
        await fc.assert(
          fc.asyncProperty(generatedValue(fc), async (g) => {
            const name = `out:${++n}`;
            const step = {
              name,
              output: g.value as never,
              attempt: 1,
              startedAt: 0,
              completedAt: 0,
            };
            const [tested, reference] = await both(async (d) => {
              const row = await running(d, n);
              return answerOf(async () => {
                await d.steps.save(row.id, claimOf(row), step);
                return (await d.steps.load(row.id)).find((s) => s.name === name)?.output;
              });
            });
            expect(tested).toEqual(reference);
          }),
          { numRuns: propertyRuns() },
        );
      },
      TIMEOUT_MS,
    );

    it(
      "any string as list()'s state or pauseQueue()'s queue",
      async () => {
        const fc = loadFastCheck();
        const states = fc.constantFrom('ready', 'dead', 'DEAD', 'done ', '');
        await fc.assert(
          fc.asyncProperty(fc.oneof(anyText(fc, 70), states), async (value) => {
            const [tested, reference] = await both(async (d) => {
              const listed = await answerOf(async () =>
                d.introspect?.list({ state: value as never }),
              );
              const paused = await answerOf(async () => {
                await d.introspect?.pauseQueue(value);
                await d.introspect?.resumeQueue(value);
                return 'paused and resumed';
              });
              return { stored: exactText([listed, paused]) };
            });
            expect(tested).toEqual(reference);
          }),
          { numRuns: propertyRuns() },
        );
      },
      TIMEOUT_MS,
    );
  });
}
