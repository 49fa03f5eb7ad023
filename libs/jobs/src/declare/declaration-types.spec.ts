import { errorCodeOf, JobsError } from '../errors/jobs-error';
import { t } from '../schema';
import { MAX_STEP_NAME_LENGTH } from '../values/bounds';
import { runJobs, type JobsHarness } from '../testing/run-jobs';
import { job } from './job';
import { purge } from './purge';

let n = 0;
const unique = (): string => `decl-types-${++n}`;

const base = () => ({
  name: unique(),
  input: t.object({}),
  idempotencyKey: () => 'k',
  tenant: 'none' as const,
});

/** The error a thrown call carries. */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('job() refuses a retry flag that is not a boolean, naming the field', () => {
  it.each([
    ['retry.jitter', { jitter: 'false' }],
    ['retry.jitter', { jitter: 0 }],
    ['retry.deadLetter', { deadLetter: 'false' }],
    ['retry.deadLetter', { deadLetter: null }],
  ])('refuses %s = %p', (field, retry) => {
    const def = { ...base(), retry } as unknown as Parameters<typeof job>[0];
    const error = thrown(() => job(def));
    expect(errorCodeOf(error)).toBe('X_JOB_DECLARATION_INVALID');
    expect((error as JobsError).meta).toMatchObject({ field });
  });

  it('keeps true and false as declared, and the defaults when absent', () => {
    const off = job({ ...base(), retry: { jitter: false, deadLetter: false } });
    expect(off.retry).toMatchObject({ jitter: false, deadLetter: false });
    const on = job({ ...base(), retry: { jitter: true, deadLetter: true } });
    expect(on.retry).toMatchObject({ jitter: true, deadLetter: true });
    expect(job({ ...base(), retry: {} }).retry).toMatchObject({ jitter: true, deadLetter: true });
  });
});

describe('purge() refuses a target whose step name no driver stores, before any target is purged', () => {
  let h: JobsHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it.each([
    ['too long', 'x'.repeat(MAX_STEP_NAME_LENGTH)],
    ['holding a NUL', 'a\u0000b'],
    ['holding a lone surrogate', 'a\ud800b'],
  ])('a target name %s: X_INVARIANT, and the earlier target untouched', async (_label, bad) => {
    const purged: string[] = [];
    const target = (name: string) => ({
      name,
      purgeExpired: () => {
        purged.push(name);
        return Promise.resolve(1);
      },
    });
    const sweep = purge({
      name: unique(),
      targets: () => [target('first'), target(bad)],
      retry: { attempts: 1 },
    });
    h = await runJobs({ jobs: [sweep] });
    const { id } = await sweep.enqueue({});
    await h.settle();
    const row = await h.driver.get(id);
    expect(row?.state).toBe('dead');
    expect(row?.lastError).toContain('X_INVARIANT');
    expect(purged).toEqual([]);
  });

  it('refuses targets that is not a function at the declaration', () => {
    const def = { name: unique(), targets: [] } as unknown as Parameters<typeof purge>[0];
    expect(errorCodeOf(thrown(() => purge(def)))).toBe('X_JOB_DECLARATION_INVALID');
  });
});
