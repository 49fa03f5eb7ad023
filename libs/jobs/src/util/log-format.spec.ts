import { JobKeyBusyError } from '../errors/operator-errors';
import { formatLogJson, formatLogLine, logError, logRecord } from './log-format';

const AT = Date.UTC(2026, 0, 2, 3, 4, 5, 6);

describe('formatLogLine', () => {
  it('prints the event, then key=value per field, with attempt folded as attempt/maxAttempts', () => {
    expect(
      formatLogLine('jobs.attempt.failed', {
        job: 'onboard-org',
        jobId: '0190a1b2-0000-7000-8000-000000000001',
        attempt: 2,
        maxAttempts: 5,
        queue: 'default',
        outcome: 'retried',
        code: 'X_TEST_FLAKY',
        error: 'X_TEST_FLAKY: the mail server said "try later"',
        retryInMs: 2000,
      }),
    ).toBe(
      'jobs.attempt.failed job=onboard-org jobId=0190a1b2-0000-7000-8000-000000000001 attempt=2/5 ' +
        'queue=default outcome=retried code=X_TEST_FLAKY ' +
        'error="X_TEST_FLAKY: the mail server said \\"try later\\"" retryInMs=2000',
    );
  });

  it('keeps one line: newlines, tabs, backslashes and control characters are escaped inside quotes', () => {
    const line = formatLogLine('jobs.claim.failed', {
      error: 'first line\nsecond\tline C:\\path \u0000',
    });
    expect(line).toBe('jobs.claim.failed error="first line\\nsecond\\tline C:\\\\path \\u0000"');
    expect(line.split('\n')).toHaveLength(1);
  });

  it('quotes an empty string, a value with = and a value with a space; leaves out undefined; prints null', () => {
    expect(
      formatLogLine('e', { empty: '', eq: 'a=b', space: 'a b', gone: undefined, none: null }),
    ).toBe('e empty="" eq="a=b" space="a b" none=null');
  });

  it('comma-joins arrays, prints objects as compact JSON, dates as ISO, numbers and booleans bare', () => {
    expect(
      formatLogLine('jobs.worker.started', {
        queues: ['default', 'reports'],
        at: new Date(AT),
        live: true,
        limits: { perTenant: 2, tags: ['a b'] },
        big: 10n,
      }),
    ).toBe(
      'jobs.worker.started queues=default,reports at=2026-01-02T03:04:05.006Z live=true ' +
        'limits="{\\"perTenant\\":2,\\"tags\\":[\\"a b\\"]}" big=10',
    );
  });

  it('prints an error as one line with its code and message; its stack only with stacks', () => {
    const error = new JobKeyBusyError('sync', 'acct-1');
    const plain = formatLogLine('jobs.attempt.refused', { error });
    expect(plain).toBe(
      `jobs.attempt.refused error=${JSON.stringify(`X_JOB_KEY_BUSY: ${error.message}`)}`,
    );
    expect(plain).not.toContain('at ');

    const withStack = formatLogLine('jobs.attempt.refused', { error }, { stacks: true });
    expect(withStack.split('\n')).toHaveLength(1);
    expect(withStack).toMatch(/ errorStack="JobKeyBusyError: .*\\n {4}at /);
  });

  it('does not fold attempt when maxAttempts is absent', () => {
    expect(formatLogLine('jobs.lease.lost', { jobId: 'j', attempt: 3 })).toBe(
      'jobs.lease.lost jobId=j attempt=3',
    );
  });
});

describe('formatLogJson', () => {
  it('prints one JSON object: time, level, event first, then the fields as values', () => {
    const line = formatLogJson(
      'error',
      'jobs.attempt.failed',
      { job: 'onboard-org', attempt: 5, maxAttempts: 5, error: new JobKeyBusyError('sync', 'k') },
      AT,
    );
    expect(line.includes('\n')).toBe(false);
    const parsed = JSON.parse(line) as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual([
      'time',
      'level',
      'event',
      'job',
      'attempt',
      'maxAttempts',
      'error',
    ]);
    expect(parsed).toMatchObject({
      time: '2026-01-02T03:04:05.006Z',
      level: 'error',
      event: 'jobs.attempt.failed',
      job: 'onboard-org',
      attempt: 5,
      maxAttempts: 5,
    });
    expect(parsed['error']).toMatch(/^X_JOB_KEY_BUSY: /);
  });

  it('never lets a field overwrite time, level or event; bigints become strings; a cycle prints as text', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic['self'] = cyclic;
    const record = logRecord('warn', 'e', { level: 'shadow', event: 'x', n: 1n }, AT);
    expect(record).toEqual({ time: '2026-01-02T03:04:05.006Z', level: 'warn', event: 'e', n: '1' });
    expect(JSON.parse(formatLogJson('info', 'e', { cyclic }, AT))).toMatchObject({
      cyclic: '[object Object]',
    });
  });
});

describe('logError', () => {
  it('renders a thrown value as one field: code and message for an error, text for anything else', () => {
    expect(logError(new JobKeyBusyError('sync', 'k'))).toMatch(/^X_JOB_KEY_BUSY: Job "sync"/);
    expect(logError(new Error('plain'))).toBe('plain');
    expect(logError('a string')).toBe('a string');
    expect(logError(42)).toBe('42');
  });
});
