/**
 * Type tests, compiled by `npm run typecheck` (never run): each `@ts-expect-error` must fail to compile for the reason
 * on its line, or the build fails.
 */
import { job, t, type JobRunArgs } from '../src';

const input = t.object({ orgId: t.uuid, seats: t.number.int().optional() });

// A complete declaration compiles.
export const ok = job({
  name: 'typed-ok',
  input,
  idempotencyKey: ({ orgId }) => `k:${orgId}`,
  tenant: ({ orgId }) => orgId,
  async run({ input: i }) {
    const org: string = i.orgId;
    const seats: number | undefined = i.seats;
    return { org, seats };
  },
});

// @ts-expect-error idempotencyKey is required by the type
export const noKey = job({ name: 'typed-no-key', input, tenant: 'none' });

// @ts-expect-error tenant is required by the type
export const noTenant = job({ name: 'typed-no-tenant', input, idempotencyKey: () => 'k' });

export const badTenant = job({
  name: 'typed-bad-tenant',
  input,
  idempotencyKey: () => 'k',
  // @ts-expect-error tenant is a function of the input or 'none', nothing else
  tenant: 'all',
});

export const badKeyInput = job({
  name: 'typed-bad-key',
  input,
  // @ts-expect-error the key function reads the schema's fields, and `missing` is not one
  idempotencyKey: ({ missing }) => String(missing),
  tenant: 'none',
});

export async function enqueueIsTyped(): Promise<void> {
  await ok.enqueue({ orgId: '0190a0a0-0000-7000-8000-000000000001' });
  await ok.enqueue({ orgId: '0190a0a0-0000-7000-8000-000000000001', seats: 3 });
  // @ts-expect-error orgId is required
  await ok.enqueue({ seats: 3 });
  // @ts-expect-error seats is a number
  await ok.enqueue({ orgId: 'x', seats: 'three' });
  // @ts-expect-error the input is an object
  await ok.enqueue('org');
  await ok.as({ id: 'user-1', orgId: 'org-1' }, { orgId: 'x' });
}

// The body's args are typed from the handle, for a @Job method.
export function boundBody(args: JobRunArgs<typeof ok>): string {
  const org: string = args.input.orgId;
  // @ts-expect-error the input has no `name`
  return args.input.name;
  return org;
}

// onSettled is told the typed result of run.
export const settled = job({
  name: 'typed-settled',
  input,
  idempotencyKey: ({ orgId }) => orgId,
  tenant: 'none',
  run: async () => ({ rows: 2 }),
  onSettled(s) {
    if (s.outcome === 'completed') {
      const rows: number = s.result.rows;
      // @ts-expect-error the result has no `cols`
      void s.result.cols;
      void rows;
    }
  },
});
