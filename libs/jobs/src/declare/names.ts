import { JobDeclarationInvalidError } from '../errors/declaration-errors';
import { nameProblem } from '../values/scalars';

export { MAX_JOB_NAME_LENGTH, MAX_QUEUE_NAME_LENGTH } from '../values/bounds';

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
  const problem = nameProblem(value, max);
  if (problem !== undefined) throw refuse(owner, field, problem);
  return value as string;
}
