import { InvariantError } from '@ultimat3/jobs';

/** The key prefix of a deployment name: `{name}:`; a name that cannot be a hash tag is refused. */
export function redisKeyPrefix(name: string): string {
  if (name.length === 0 || /[{}]/.test(name)) {
    throw new InvariantError(
      `redisJobDriver: prefix must be a non-empty name without braces (got ${JSON.stringify(name)}).`,
      "Pass a plain name, e.g. prefix: 'jobs'; the driver wraps it in braces as the keys' hash tag.",
    );
  }
  return `{${name}}:`;
}
