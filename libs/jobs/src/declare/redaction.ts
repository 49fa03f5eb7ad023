import { JobDeclarationInvalidError } from '../errors/declaration-errors';

/** The most paths one `redact:` declaration may list. */
export const MAX_REDACT_PATHS = 64;

/** What a redacted value reads as on every operator surface (`inspectJob`, `x jobs show`, the admin page). */
export const REDACTED = '[redacted]';

const SEGMENT = /^(?:\*|[^.*\s][^.\s]*)$/;

/**
 * A declared `redact:` checked: at most {@link MAX_REDACT_PATHS} dot paths into the stored input (`'card.number'`,
 * `'headers.authorization'`, `'recipients.*.email'` — `*` is every key or index at that level), each segment
 * non-empty and free of spaces. Anything else is `X_JOB_DECLARATION_INVALID` at the declaration.
 */
export function resolveRedaction(job: string, value: unknown): readonly string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.length > MAX_REDACT_PATHS) {
    throw new JobDeclarationInvalidError(
      job,
      'redact',
      `must be an array of at most ${MAX_REDACT_PATHS} dot paths into the input`,
    );
  }
  const paths: string[] = [];
  for (const path of value as unknown[]) {
    if (typeof path !== 'string' || !path.split('.').every((s) => SEGMENT.test(s))) {
      throw new JobDeclarationInvalidError(
        job,
        'redact',
        `lists ${JSON.stringify(path)}: each entry is a dot path such as 'card.number' or 'items.*.token'`,
      );
    }
    if (!paths.includes(path)) paths.push(path);
  }
  return paths;
}
