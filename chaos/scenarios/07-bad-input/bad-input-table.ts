/**
 * Scenario 7's table of bad input, as an app process meets it: each case is one call and the answer the README's
 * value contract documents for it — its coded error (`X_…`), raised at the call before anything is written, or
 * `stored` for a value the contract stores exactly (a NUL inside a payload) or a far-future time it keeps.
 */
import {
  errorCodeOf,
  job,
  task,
  uuidv7,
  type EnqueueRequest,
  type JobDriver,
} from '@ultimat3/jobs';
import { chaosRequest } from '../../harness/requests';
import { anyJson, echoJob, goodJob, nulValue, QUEUE } from './bad-input-jobs';

/** One case: what it is, the documented answer, and the call. */
interface BadInputCase {
  readonly name: string;
  readonly expect: string;
  readonly call: () => unknown;
}

/** What one case was answered. */
export interface CaseResult {
  readonly name: string;
  readonly expect: string;
  readonly got: string;
  /** The id of the row a `stored` case wrote, to follow it. */
  readonly id?: string;
}

/** A job that takes any JSON, to hand the core's JSON checks values no schema would let through. */
const anyInput = job({
  name: 'chaos.any',
  queue: QUEUE,
  input: anyJson,
  idempotencyKey: () => `any:${uuidv7()}`,
  tenant: 'none',
});

/** A job whose idempotency key is its input's `k`, verbatim. */
const keyed = job({
  name: 'chaos.keyed',
  queue: QUEUE,
  input: anyJson,
  idempotencyKey: (input) => String((input as { k: unknown }).k),
  tenant: 'none',
});

function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { d: value };
  return value;
}

function cycle(): unknown {
  const value: Record<string, unknown> = { a: 1 };
  value.self = value;
  return value;
}

/** A hand-built request, as a caller bypassing the handle would send it. */
function raw(overrides: Partial<EnqueueRequest>): EnqueueRequest {
  return chaosRequest({
    name: goodJob.name,
    queue: QUEUE,
    input: { n: -1 },
    idempotencyKey: `raw:${uuidv7()}`,
    maxAttempts: 1,
    ...overrides,
  });
}

const cron =
  (name: string, expression: string, tz = 'UTC') =>
  () =>
    task({ name, cron: expression, tz, enqueue: () => [] });

/** Every case of the table, `n` making keys unique to the run. */
export function badInputCases(driver: JobDriver, n: number): BadInputCase[] {
  const any = (value: unknown) => () => anyInput.enqueue(value);
  return [
    {
      name: 'input of the wrong shape',
      expect: 'X_JOB_INPUT_INVALID',
      call: () => goodJob.enqueue({ n: 'one' } as never),
    },
    {
      name: 'input missing',
      expect: 'X_JOB_INPUT_INVALID',
      call: () => goodJob.enqueue(undefined as never),
    },
    {
      name: 'input 2 MiB',
      expect: 'X_JOB_PAYLOAD_TOO_LARGE',
      call: any({ s: 'x'.repeat(2 * 1024 * 1024) }),
    },
    {
      name: 'input nested 100,000 levels',
      expect: 'X_JOB_INPUT_INVALID',
      call: any(nested(100_000)),
    },
    { name: 'input nested 65 levels', expect: 'X_JOB_INPUT_INVALID', call: any(nested(65)) },
    { name: 'input with a cycle', expect: 'X_JOB_INPUT_INVALID', call: any(cycle()) },
    { name: 'input with a BigInt', expect: 'X_JOB_INPUT_INVALID', call: any({ b: 1n }) },
    { name: 'input with NaN', expect: 'X_JOB_INPUT_INVALID', call: any({ x: Number.NaN }) },
    { name: 'input with a function', expect: 'X_JOB_INPUT_INVALID', call: any({ f: () => 1 }) },
    { name: 'input with a Date', expect: 'X_JOB_INPUT_INVALID', call: any({ d: new Date(0) }) },
    {
      name: 'NUL in payload strings and keys',
      expect: 'stored',
      call: () => echoJob.enqueue(nulValue(n)),
    },
    {
      name: 'NUL in an idempotency key',
      expect: 'X_JOB_DECLARATION_INVALID',
      call: () => keyed.enqueue({ k: `a\u0000${n}` }),
    },
    {
      name: 'lone surrogate in an idempotency key',
      expect: 'X_JOB_DECLARATION_INVALID',
      call: () => keyed.enqueue({ k: `a\ud800${n}` }),
    },
    {
      name: 'idempotency key of 513 characters',
      expect: 'X_JOB_DECLARATION_INVALID',
      call: () => keyed.enqueue({ k: 'k'.repeat(513) }),
    },
    {
      name: 'queue name with a space',
      expect: 'X_JOB_OPTIONS_INVALID',
      call: () => goodJob.enqueue({ n }, { queue: 'bad queue' }),
    },
    {
      name: 'delay of 200 years',
      expect: 'X_JOB_OPTIONS_INVALID',
      call: () => goodJob.enqueue({ n }, { delay: '200y' as never }),
    },
    {
      name: 'runAt NaN',
      expect: 'X_JOB_OPTIONS_INVALID',
      call: () => goodJob.enqueue({ n }, { runAt: Number.NaN }),
    },
    {
      name: 'runAt in year 10000',
      expect: 'X_JOB_OPTIONS_INVALID',
      call: () => goodJob.enqueue({ n }, { runAt: 253_402_300_800_000 }),
    },
    {
      name: 'raw request: NUL in the key',
      expect: 'X_VALUE_INVALID',
      call: () => driver.enqueue(raw({ idempotencyKey: 'k\u0000' })),
    },
    {
      name: 'raw request: NUL in the tenant',
      expect: 'X_VALUE_INVALID',
      call: () => driver.enqueue(raw({ tenantId: 't\u0000' })),
    },
    {
      name: 'raw request: id not a UUID',
      expect: 'X_VALUE_INVALID',
      call: () => driver.enqueue(raw({ id: 'nope' })),
    },
    {
      name: 'raw request: non-JSON input',
      expect: 'X_VALUE_INVALID',
      call: () => driver.enqueue(raw({ input: { b: 1n } as never })),
    },
    {
      name: 'cron 0 0 31 2 * (never)',
      expect: 'X_JOB_DECLARATION_INVALID',
      call: cron(`chaos.feb31-${n}`, '0 0 31 2 *'),
    },
    {
      name: 'cron */0',
      expect: 'X_JOB_DECLARATION_INVALID',
      call: cron(`chaos.step0-${n}`, '*/0 * * * *'),
    },
    {
      name: 'cron minute 60',
      expect: 'X_JOB_DECLARATION_INVALID',
      call: cron(`chaos.min60-${n}`, '60 * * * *'),
    },
    {
      name: 'zone Mars/Olympus',
      expect: 'X_JOB_DECLARATION_INVALID',
      call: cron(`chaos.mars-${n}`, '0 0 * * *', 'Mars/Olympus'),
    },
  ];
}

/** An error's code, or `uncoded <name>: <message>` for one without. */
export function codeOf(error: unknown): string {
  const e = error as Error | undefined;
  return errorCodeOf(error) ?? `uncoded ${e?.name}: ${String(e?.message).slice(0, 200)}`;
}

/** Runs every case, one after the other, answering what each was answered. */
export async function runCases(cases: readonly BadInputCase[]): Promise<CaseResult[]> {
  const results: CaseResult[] = [];
  for (const c of cases) {
    try {
      const answer = (await c.call()) as { id?: unknown } | undefined;
      const id = typeof answer?.id === 'string' ? answer.id : undefined;
      results.push({ name: c.name, expect: c.expect, got: 'stored', ...(id ? { id } : {}) });
    } catch (error) {
      const code = errorCodeOf(error);
      const got =
        code ??
        `uncoded ${(error as Error)?.name}: ${String((error as Error)?.message).slice(0, 200)}`;
      results.push({ name: c.name, expect: c.expect, got });
    }
  }
  return results;
}
