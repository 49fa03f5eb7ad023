/**
 * Type tests for DTO class inputs, compiled by `npm run typecheck` (never run): each `@ts-expect-error` must fail to
 * compile for the reason on its line, or the build fails.
 */
import { job, type JobRunArgs } from '../src';

class AddressDto {
  city!: string;
  zip?: string;
}

class SignupDto {
  email!: string;
  address!: AddressDto;
  tags!: string[];
  at?: Date;
  /** A method is part of the instance, not of the data an enqueue passes. */
  domain(): string {
    return this.email.split('@')[1] ?? '';
  }
}

export const signup = job({
  name: 'typed-dto',
  input: SignupDto,
  // the key and tenant functions receive an instance: its methods are there
  idempotencyKey: (s) => `signup:${s.domain()}:${s.email}`,
  tenant: 'none',
  async run({ input }) {
    const instance: SignupDto = input;
    const city: string = input.address.city;
    return { instance, city };
  },
});

export async function enqueueTakesTheData(): Promise<void> {
  await signup.enqueue({ email: 'a@x.io', address: { city: 'Lyon' }, tags: [] });
  await signup.enqueue({
    email: 'a@x.io',
    address: { city: 'Lyon', zip: '69001' },
    tags: ['t'],
    at: new Date(),
  });
  // a Date property may be passed as its ISO string: stored as one either way
  await signup.enqueue({
    email: 'a@x.io',
    address: { city: 'Lyon' },
    tags: [],
    at: '2026-01-01T00:00:00Z',
  });
  await signup.enqueueMany([{ email: 'a@x.io', address: { city: 'Lyon' }, tags: [] }]);
  // @ts-expect-error email is required
  await signup.enqueue({ address: { city: 'Lyon' }, tags: [] });
  // @ts-expect-error the nested DTO's city is a string
  await signup.enqueue({ email: 'a@x.io', address: { city: 1 }, tags: [] });
  // @ts-expect-error tags hold strings
  await signup.enqueue({ email: 'a@x.io', address: { city: 'Lyon' }, tags: [1] });
}

// A @Job method's args are typed from the handle: the class instance.
export function boundDtoBody(args: JobRunArgs<typeof signup>): string {
  const domain: string = args.input.domain();
  // @ts-expect-error the DTO has no `name`
  return domain + args.input.name;
}

export const badKey = job({
  name: 'typed-dto-bad-key',
  input: SignupDto,
  // @ts-expect-error the key function reads the class's members, and `missing` is not one
  idempotencyKey: (s) => s.missing,
  tenant: 'none',
});
