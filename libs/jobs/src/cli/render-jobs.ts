import type { BulkPreviewView, BulkView } from '../operator/bulk';
import type { JobPageView, JobSummaryView, JobView } from '../operator/job-views';
import { record, span, table, when } from './output';

/** A page of jobs as a table, then the command for the next page. */
export function renderJobPage(page: JobPageView, nextCommand: (cursor: string) => string): string {
  const rows = page.jobs.map((j) => [
    j.id,
    j.name,
    j.queue,
    j.state,
    `${j.attempt}/${j.maxAttempts}`,
    j.tenantId,
    when(j.createdAt),
    firstLine(j.lastError),
  ]);
  const lines = [
    table(['id', 'name', 'queue', 'state', 'attempt', 'tenant', 'created', 'last error'], rows),
  ];
  lines.push(page.jobs.length === 0 ? 'no jobs' : `${page.jobs.length} job(s)`);
  if (page.next !== null) lines.push(`next page: ${nextCommand(page.next)}`);
  return lines.join('\n');
}

/** One job: its row, its failure, its steps with their durations. */
export function renderJob(job: JobView): string {
  const parts = [
    record([
      ['id', job.id],
      ['run', job.runId],
      ['name', job.name],
      ['queue', job.queue],
      ['state', job.state],
      ['attempt', `${job.attempt}/${job.maxAttempts}`],
      ['tenant', job.tenantId],
      ['idempotency key', job.idempotencyKey],
      ['enqueued by', job.enqueuedBy],
      ['created', when(job.createdAt)],
      ['run at', when(job.runAt)],
      ['finished', when(job.finishedAt)],
      ['worker', job.workerId],
      [
        'progress',
        job.progress === null
          ? null
          : `${job.progress.done}/${job.progress.total}${job.progress.note ? ` ${job.progress.note}` : ''}`,
      ],
      ['input', job.input],
      [
        'redacted',
        job.redacted === null
          ? '(no declaration given: --app or --manifest)'
          : job.redacted.join(', '),
      ],
    ]),
  ];
  if (job.failure !== null) {
    parts.push(
      `failure: ${job.failure.code === null ? '' : `${job.failure.code}: `}${job.failure.message}`,
    );
    if (job.failure.stack !== null) parts.push(job.failure.stack);
  }
  parts.push(
    job.steps.length === 0
      ? 'no steps stored'
      : table(
          ['step', 'attempt', 'started', 'took', 'output'],
          job.steps.map((s) => [
            s.name,
            s.attempt,
            when(s.startedAt),
            span(s.durationMs),
            s.hasOutput ? (s.output === undefined ? '(stored; --outputs)' : s.output) : '',
          ]),
        ),
  );
  return parts.join('\n');
}

/** A one-row summary after an action on one job. */
export function renderAction(verb: string, job: JobSummaryView): string {
  return `${verb} ${job.id} (${job.name}): ${job.state}`;
}

/** What a bulk call did, and how to go on. */
export function renderBulk(view: BulkView): string {
  const more = view.remaining > 0 ? ` — ${view.remaining} remaining: run it again` : '';
  return `${view.action}: ${view.affected} row(s)${more}`;
}

/** A bulk dry run: what it would cover, and the flag that does it. */
export function renderPreview(view: BulkPreviewView): string {
  const count = view.more ? `at least ${view.matched}` : String(view.matched);
  return [
    `dry run: ${view.action} would cover ${count} ${view.filter.state} row(s); nothing changed.`,
    table(
      ['id', 'name', 'queue', 'state', 'created'],
      view.sample.map((j) => [j.id, j.name, j.queue, j.state, when(j.createdAt)]),
    ),
    'add --yes to do it (at most 1,000 rows per call; repeat until 0 remain).',
  ].join('\n');
}

function firstLine(text: string | null): string {
  if (text === null) return '';
  const line = text.split('\n', 1)[0] ?? '';
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}
