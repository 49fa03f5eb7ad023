import type { JobRow } from '../driver/job-row';
import type { OperatorDeclarations } from './declarations';
import { jobSummary, type JobSummaryView } from './job-views';
import { redactedValues, scrubText } from './redact';

/**
 * The values of `row`'s input its job's `redact:` paths reach (see `redactedValues`), by the app's declarations; none
 * without them, or for a job they do not declare.
 */
export function secretsOf(row: JobRow, declarations: OperatorDeclarations | undefined): string[] {
  const paths = declarations?.jobs.find((j) => j.name === row.name)?.redact;
  return paths === undefined ? [] : redactedValues(row.input, paths);
}

/** {@link jobSummary} with `secrets` scrubbed from the error text and the progress note (`scrubText`). */
export function scrubbedSummary(row: JobRow, secrets: readonly string[]): JobSummaryView {
  const summary = jobSummary(row);
  if (secrets.length === 0) return summary;
  const note = row.progress?.note;
  return {
    ...summary,
    lastError: row.lastError === null ? null : scrubText(row.lastError, secrets),
    progress:
      row.progress === null || note === undefined
        ? row.progress
        : { ...row.progress, note: scrubText(note, secrets) },
  };
}
