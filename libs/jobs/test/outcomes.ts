/** How a call a spec makes ended: the code it threw, or the error it rejected with. */
import { errorCodeOf } from '../src/errors/jobs-error';

/** The code `fn` throws synchronously, or `'returned'` when it returns. */
export function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return errorCodeOf(error);
  }
  return 'returned';
}

/** The code `promise` rejects with, or `'resolved'` when it resolves. */
export async function rejectionCode(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    return errorCodeOf(error);
  }
  return 'resolved';
}

/** The error `promise` rejects with; throws when it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<Record<string, unknown>> {
  try {
    await promise;
  } catch (error) {
    return error as Record<string, unknown>;
  }
  throw new Error('expected the call to reject');
}
