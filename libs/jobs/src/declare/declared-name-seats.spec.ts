import { errorCodeOf } from '../errors/jobs-error';
import { t } from '../schema';
import { stampExportNames, job } from './job';
import { stampTaskExportNames, task } from './task';

const input = t.object({});
const aJob = (name?: string): unknown =>
  job({
    ...(name === undefined ? {} : { name }),
    input,
    idempotencyKey: () => 'k',
    tenant: 'none',
  });
const aTask = (name?: string): unknown =>
  task({
    ...(name === undefined ? {} : { name }),
    cron: '0 3 * * *',
    tz: 'UTC',
    enqueue: () => [],
  });

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return errorCodeOf(error);
  }
  return undefined;
}

/**
 * Jobs and tasks have separate seats in the declaration table: a task may share a job's name. A task's seat was the
 * job seat `task:<name>`, and `:` is a name character, so a job named `task:nightly` and a task named `nightly` —
 * two different durable keys — refused each other as X_JOB_DUPLICATE, whichever was declared second.
 */
describe('the declaration table keeps job and task names apart', () => {
  it('a job named task:<x> and a task named <x> are both declared, in either order', () => {
    expect(codeOf(() => aJob('task:seats-spec-a'))).toBeUndefined();
    expect(codeOf(() => aTask('seats-spec-a'))).toBeUndefined();
    expect(codeOf(() => aTask('seats-spec-b'))).toBeUndefined();
    expect(codeOf(() => aJob('task:seats-spec-b'))).toBeUndefined();
  });

  it('an export name stamped on each does not collide either', () => {
    const j = aJob();
    const tk = aTask();
    expect(codeOf(() => stampExportNames({ 'task:seats-spec-c': j }))).toBeUndefined();
    expect(codeOf(() => stampTaskExportNames({ 'seats-spec-c': tk }))).toBeUndefined();
  });

  it('stamping an export name frees the positional name for another declaration', () => {
    const j = aJob() as { readonly name: string };
    const positional = j.name;
    stampExportNames({ 'seats-spec-e': j });
    expect(j.name).toBe('seats-spec-e');
    expect(codeOf(() => aJob(positional))).toBeUndefined();
  });

  it('the same kind under one name is still X_JOB_DUPLICATE', () => {
    aJob('seats-spec-d');
    aTask('seats-spec-d');
    expect(codeOf(() => aJob('seats-spec-d'))).toBe('X_JOB_DUPLICATE');
    expect(codeOf(() => aTask('seats-spec-d'))).toBe('X_JOB_DUPLICATE');
  });
});
