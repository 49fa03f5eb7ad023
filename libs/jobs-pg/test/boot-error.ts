import { JobsError, errorCodeOf } from '@ultimat3/jobs';

/** What a boot rejected with, which must be `X_DRIVER_UNAVAILABLE` (a boot that answered is closed, and fails this). */
export async function bootError(boot: Promise<{ close(): Promise<void> }>): Promise<JobsError> {
  const error = await boot.then(
    async (backend) => {
      await backend.close();
      return undefined;
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(JobsError);
  expect(errorCodeOf(error)).toBe('X_DRIVER_UNAVAILABLE');
  return error as JobsError;
}
