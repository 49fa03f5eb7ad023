import { JobDeclarationInvalidError } from '../errors/declaration-errors';

/** Longest job or task name. */
export const MAX_JOB_NAME_LENGTH = 128;
/** Longest queue name. */
export const MAX_QUEUE_NAME_LENGTH = 63;

const NAME = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;

/** Builds the error a refused name throws (default `X_JOB_DECLARATION_INVALID`). */
export type NameRefusal = (owner: string, field: string, reason: string) => Error;

const declarationInvalid: NameRefusal = (owner, field, reason) =>
  new JobDeclarationInvalidError(owner, field, reason);

/** Refuses a name that is empty, too long, or not made of letters, digits and `. _ : -`. */
export function assertName(
  owner: string,
  field: string,
  value: unknown,
  max: number,
  refuse: NameRefusal = declarationInvalid,
): string {
  if (typeof value !== 'string' || value.length === 0) {
    throw refuse(owner, field, 'must be a non-empty string');
  }
  if (value.length > max) {
    throw refuse(owner, field, `is ${value.length} characters, over ${max}`);
  }
  if (!NAME.test(value)) {
    throw refuse(
      owner,
      field,
      'may hold only letters, digits and . _ : - (and not start with a symbol)',
    );
  }
  return value;
}
