import { claimOf } from '../../driver/job-row';
import {
  MAX_FREE_TEXT_LENGTH,
  MAX_JSON_DEPTH,
  MAX_STEP_NAME_LENGTH,
  MAX_TIME_MS,
  TRUNCATION_MARKER,
} from '../../values/bounds';
import type { Harness } from './harness';
import {
  attemptsOf,
  enqueueThroughCore,
  exactText,
  nested,
  outcomeCode,
  prepare,
  probeJob,
  stepsOf,
} from './values-support';

const FIVE_MB = 'x'.repeat(5 * 1024 * 1024);

/**
 * The probes of a hostile caller, each a named regression: a value either refused with a coded error naming it, or
 * stored and read back exactly — the same answer on every driver.
 */
export function valuesRegressionSuite(h: Harness): void {
  describe('value contract: step names', () => {
    /** Three attempts of a job whose body charges in a step, then fails: how many times did it charge? */
    const chargesOver3Attempts = async (name: string): Promise<[number, string[]]> => {
      const request = await h.enqueue({ maxAttempts: 3 });
      let charged = 0;
      const codes = await attemptsOf(h, request, 3, async (step) => {
        await step.run(name, () => ++charged);
        throw new Error('a later step failed');
      });
      return [charged, codes.map(String)];
    };

    it("a lone surrogate ('charge:\\ud83d') is refused before the step runs: X_VALUE_INVALID, never charged", async () => {
      expect(await chargesOver3Attempts('charge:\ud83d')).toEqual([
        0,
        Array(3).fill('X_VALUE_INVALID'),
      ]);
    });

    it('a NUL is refused before the step runs: X_VALUE_INVALID, never charged', async () => {
      expect(await chargesOver3Attempts('charge\u0000')).toEqual([
        0,
        Array(3).fill('X_VALUE_INVALID'),
      ]);
    });

    it(`a name over ${MAX_STEP_NAME_LENGTH} characters (~2.7 KB) is refused before the step runs`, async () => {
      expect(await chargesOver3Attempts('c'.repeat(2_800))).toEqual([
        0,
        Array(3).fill('X_VALUE_INVALID'),
      ]);
    });

    it('a well-formed astral name, and one of exactly the maximum length, run once ever over 3 attempts', async () => {
      expect(await chargesOver3Attempts('charge:\ud83d\ude00')).toEqual([
        1,
        Array(3).fill('undefined'),
      ]);
      expect(await chargesOver3Attempts('c'.repeat(MAX_STEP_NAME_LENGTH))).toEqual([
        1,
        Array(3).fill('undefined'),
      ]);
    });

    it('a step name handed to the driver directly is refused the same way', async () => {
      const row = await h.running();
      const record = { attempt: 1, startedAt: 0, completedAt: 0, output: 1 };
      for (const name of ['charge:\ud83d', 'a\u0000', 'c'.repeat(2_800), '']) {
        expect(
          await outcomeCode(() => h.driver().steps.save(row.id, claimOf(row), { ...record, name })),
        ).toBe('X_VALUE_INVALID');
      }
      expect(await h.driver().steps.load(row.id)).toEqual([]);
    });
  });

  describe('value contract: keys and tenants never merge', () => {
    it("keys 'sk\\ud800' and 'sk\\udbff' are refused at enqueue, not merged into one job", async () => {
      const handle = probeJob();
      for (const key of ['sk\ud800', 'sk\udbff']) {
        expect(await outcomeCode(() => prepare(h, handle, { key }))).toBe(
          'X_JOB_DECLARATION_INVALID',
        );
        expect(await outcomeCode(() => h.enqueue({ idempotencyKey: key }))).toBe('X_VALUE_INVALID');
      }
      expect(await h.driver().stats()).toEqual([]);
    });

    it("tenants 'org\\ud800' and 'org\\udbff' are refused at enqueue, never one tenant's job", async () => {
      const handle = probeJob({ tenant: 'input' });
      for (const tenant of ['org\ud800', 'org\udbff', 'org\u0000', 'o'.repeat(2_800)]) {
        expect(await outcomeCode(() => prepare(h, handle, { key: 'same', tenant }))).toBe(
          'X_JOB_DECLARATION_INVALID',
        );
        expect(
          await outcomeCode(() => h.enqueue({ idempotencyKey: 'same', tenantId: tenant })),
        ).toBe('X_VALUE_INVALID');
      }
      expect(await h.driver().stats()).toEqual([]);
    });

    it('an actor id or org that breaks the contract is refused at enqueue', async () => {
      const handle = probeJob();
      expect(await outcomeCode(() => prepare(h, handle, {}, {}, { id: 'u\ud800' }))).toBe(
        'X_JOB_OPTIONS_INVALID',
      );
      expect(await outcomeCode(() => prepare(h, handle, {}, {}, { orgId: 'o\u0000' }))).toBe(
        'X_JOB_OPTIONS_INVALID',
      );
      expect(await outcomeCode(() => h.enqueue({ enqueuedBy: 'u\ud800' }))).toBe('X_VALUE_INVALID');
    });

    it('a cross-tenant reason with a NUL or a lone surrogate is refused at the driver, never a raw database error', async () => {
      for (const reason of ['ticket\u0000', 'ticket\ud800', 'x'.repeat(MAX_FREE_TEXT_LENGTH + 1)]) {
        const request = h.request({ crossTenantReason: reason });
        expect(await outcomeCode(() => h.driver().enqueue(request))).toBe('X_VALUE_INVALID');
        expect(await outcomeCode(() => h.driver().enqueueMany([request]))).toBe('X_VALUE_INVALID');
        expect(await h.driver().get(request.id)).toBeUndefined();
      }
    });
  });

  describe('value contract: replay returns exactly what the first run saw', () => {
    const tricky = (): unknown =>
      JSON.parse(
        '{"zeta":1,"alpha":"a\\ud800b","__proto__":{"polluted":true},"mid":[-0,"\\u0000",{"b":1,"a":2}],"a":null}',
      );

    it('an input keeps its key order, an own __proto__ key, NUL and lone surrogates', async () => {
      const input = tricky();
      const request = await enqueueThroughCore(h, probeJob(), input);
      const row = await h.driver().get(request.id);
      expect(exactText(row?.input)).toBe(exactText(input));
      expect(Object.keys(row?.input as object)).toEqual(['zeta', 'alpha', '__proto__', 'mid', 'a']);
      expect(Object.prototype.hasOwnProperty.call(row?.input, '__proto__')).toBe(true);
      const [claimed] = await h.claim();
      expect(exactText(claimed?.input)).toBe(exactText(input));
    });

    it('a step output with a lone surrogate, an own __proto__ key and its key order replays exactly', async () => {
      const request = await h.enqueue({ maxAttempts: 3 });
      const seen: (string | undefined)[] = [];
      let calls = 0;
      const codes = await attemptsOf(h, request, 2, async (step) => {
        seen.push(exactText(await step.run('read', () => (++calls, tricky()))));
        throw new Error('fail after the step');
      });
      expect(codes).toEqual([undefined, undefined]);
      expect(calls).toBe(1);
      expect(seen).toEqual([exactText(tricky()), exactText(tricky())]);
    });

    it('a step output with a NUL in a key replays exactly', async () => {
      const row = await h.running();
      const output = { 'k\u0000': 'v\u0000' };
      await h.driver().steps.save(row.id, claimOf(row), {
        name: 'nul',
        output,
        attempt: 1,
        startedAt: 0,
        completedAt: 0,
      });
      const [loaded] = await h.driver().steps.load(row.id);
      expect(exactText(loaded?.output)).toBe(exactText(output));
    });
  });

  describe('value contract: numbers, ids and times', () => {
    it('priority NaN, 1.5 and 1e10 are X_JOB_OPTIONS_INVALID at enqueue and X_VALUE_INVALID at the driver', async () => {
      for (const priority of [Number.NaN, 1.5, 1e10]) {
        expect(await outcomeCode(() => prepare(h, probeJob(), {}, { priority }))).toBe(
          'X_JOB_OPTIONS_INVALID',
        );
        expect(await outcomeCode(() => h.enqueue({ priority }))).toBe('X_VALUE_INVALID');
      }
    });

    it('a runId that is not a UUID stays X_JOB_OPTIONS_INVALID, and X_VALUE_INVALID at the driver', async () => {
      expect(await outcomeCode(() => prepare(h, probeJob(), {}, { runId: 'run-1' }))).toBe(
        'X_JOB_OPTIONS_INVALID',
      );
      expect(await outcomeCode(() => h.enqueue({ runId: 'run-1' }))).toBe('X_VALUE_INVALID');
      expect(await outcomeCode(() => h.enqueue({ id: 'job-1' }))).toBe('X_VALUE_INVALID');
    });

    it('maxAttempts 3e9 is X_VALUE_INVALID at the driver', async () => {
      expect(await outcomeCode(() => h.enqueue({ maxAttempts: 3e9 }))).toBe('X_VALUE_INVALID');
      expect(await outcomeCode(() => h.enqueue({ maxAttempts: 0 }))).toBe('X_VALUE_INVALID');
    });

    it('a runAt past year 9999 and delay 1e15 are X_JOB_OPTIONS_INVALID; the driver refuses the time', async () => {
      const handle = probeJob();
      expect(await outcomeCode(() => prepare(h, handle, {}, { runAt: MAX_TIME_MS + 1 }))).toBe(
        'X_JOB_OPTIONS_INVALID',
      );
      expect(await outcomeCode(() => prepare(h, handle, {}, { delay: 1e15 }))).toBe(
        'X_JOB_OPTIONS_INVALID',
      );
      expect(await outcomeCode(() => h.enqueue({ runAt: MAX_TIME_MS + 1 }))).toBe(
        'X_VALUE_INVALID',
      );
      const latest = await h.enqueue({ runAt: MAX_TIME_MS });
      expect((await h.driver().get(latest.id))?.runAt).toBe(MAX_TIME_MS);
    });

    it("onConflict 'ERROR' is X_JOB_OPTIONS_INVALID at enqueue and X_VALUE_INVALID at the driver, never a dedupe", async () => {
      const onConflict = 'ERROR' as unknown as 'error';
      expect(await outcomeCode(() => prepare(h, probeJob(), {}, { onConflict }))).toBe(
        'X_JOB_OPTIONS_INVALID',
      );
      const held = await h.enqueue({ idempotencyKey: 'held' });
      expect(await outcomeCode(() => h.enqueue({ idempotencyKey: 'held', onConflict }))).toBe(
        'X_VALUE_INVALID',
      );
      const [stats] = await h.driver().stats();
      expect(stats?.ready).toBe(1);
      expect(await h.driver().get(held.id)).toMatchObject({ state: 'ready' });
    });
  });

  describe('value contract: nesting', () => {
    it('an input nested 3,000 levels is X_JOB_INPUT_INVALID at enqueue, X_VALUE_INVALID at the driver', async () => {
      const deep = nested(3_000);
      expect(await outcomeCode(() => prepare(h, probeJob(), deep))).toBe('X_JOB_INPUT_INVALID');
      expect(await outcomeCode(() => h.enqueue({ input: deep as never }))).toBe('X_VALUE_INVALID');
      expect(
        await outcomeCode(() => h.enqueue({ input: nested(MAX_JSON_DEPTH + 1) as never })),
      ).toBe('X_VALUE_INVALID');
      const deepest = await enqueueThroughCore(h, probeJob(), nested(MAX_JSON_DEPTH));
      expect(exactText((await h.driver().get(deepest.id))?.input)).toBe(
        exactText(nested(MAX_JSON_DEPTH)),
      );
    });

    it('a step output nested 3,000 levels is X_STEP_OUTPUT_INVALID, never a RangeError', async () => {
      const request = await h.enqueue();
      const codes = await attemptsOf(h, request, 1, (step) =>
        step.run('deep', () => nested(3_000)),
      );
      expect(codes).toEqual(['X_STEP_OUTPUT_INVALID']);
    });
  });

  describe('value contract: free text is sanitised and bounded', () => {
    const bounded = (text: string | null | undefined): void => {
      expect(text?.length).toBeLessThanOrEqual(MAX_FREE_TEXT_LENGTH);
      expect(text).toContain(TRUNCATION_MARKER);
    };

    it('an error text of 5 MB is stored cut to the bound, with the marker', async () => {
      const row = await h.running();
      await h.driver().nack(row.id, { ...claimOf(row), kind: 'dead', error: FIVE_MB });
      bounded((await h.driver().get(row.id))?.lastError);
    });

    it('a progress note of 5 MB is stored cut to the bound, with the marker', async () => {
      const row = await h.running();
      await h.driver().recordProgress(row.id, claimOf(row), { done: 1, total: 2, note: FIVE_MB });
      bounded((await h.driver().get(row.id))?.progress?.note);
    });

    it('NUL and lone surrogates in free text are replaced by U+FFFD on every driver', async () => {
      const row = await h.running();
      await h.driver().recordProgress(row.id, claimOf(row), {
        done: 1,
        total: 2,
        note: 'a\u0000b\ud800c\udc00d\ud83d\ude00',
      });
      await h.driver().nack(row.id, { ...claimOf(row), kind: 'dead', error: 'e\u0000\udbff' });
      const stored = await h.driver().get(row.id);
      expect(stored?.progress?.note).toBe('a\ufffdb\ufffdc\ufffdd\ud83d\ude00');
      expect(stored?.lastError).toBe('e\ufffd\ufffd');
    });
  });

  describe('value contract: step calls', () => {
    it('step.sleep for 1e15 ms is X_STEP_DURATION_INVALID, never a time no driver stores', async () => {
      const request = await h.enqueue();
      const codes = await attemptsOf(h, request, 1, (step) => step.sleep('long', 1e15));
      expect(codes).toEqual(['X_STEP_DURATION_INVALID']);
    });

    it('a plain step stores and answers its output', async () => {
      const row = await h.running();
      expect(await stepsOf(h, row).run('plain', () => ({ ok: true }))).toEqual({ ok: true });
    });
  });
}
