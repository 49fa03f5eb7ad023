import { ConsoleLogger, Logger, type LoggerService } from '@nestjs/common';
import { memoryJobDriver } from '../driver/memory';
import { errorCodeOf } from '../errors/jobs-error';
import { frozenClock } from '../testing/frozen-clock';
import { resolveJobsSettings } from './jobs.config';
import type { JobsModuleOptions } from './jobs.options';
import { nestJobsLogger } from './nest-jobs.logger';

const AT = Date.UTC(2026, 0, 2, 3, 4, 5, 6);
const ALL_LEVELS = ['log', 'error', 'warn', 'debug', 'verbose', 'fatal'] as const;

/** Captures what is written to a process stream while `fn` runs. */
async function captured(
  stream: NodeJS.WriteStream,
  fn: () => unknown | Promise<unknown>,
): Promise<string> {
  const chunks: string[] = [];
  const spy = jest.spyOn(stream, 'write').mockImplementation((chunk: unknown) => {
    chunks.push(String(chunk));
    return true;
  });
  try {
    await fn();
  } finally {
    spy.mockRestore();
  }
  return chunks.join('');
}

describe('nestJobsLogger, text (the default)', () => {
  it('hands Nest one key=value line per event, at the matching level', () => {
    const calls: [string, unknown][] = [];
    const nest: LoggerService = {
      log: (message: unknown) => void calls.push(['log', message]),
      warn: (message: unknown) => void calls.push(['warn', message]),
      error: (message: unknown) => void calls.push(['error', message]),
      debug: (message: unknown) => void calls.push(['debug', message]),
    };
    const logger = nestJobsLogger(nest);
    logger.log('info', 'jobs.worker.started', { workerId: 'w1', queues: ['default', 'mail'] });
    logger.log('error', 'jobs.attempt.failed', {
      job: 'onboard-org',
      jobId: 'j1',
      attempt: 2,
      maxAttempts: 5,
      code: 'X_MAIL_DOWN',
      error: 'X_MAIL_DOWN: smtp refused',
    });
    logger.log('warn', 'jobs.lease.lost', { jobId: 'j1' });
    logger.log('debug', 'jobs.claim.empty');
    expect(calls).toEqual([
      ['log', 'jobs.worker.started workerId=w1 queues=default,mail'],
      [
        'error',
        'jobs.attempt.failed job=onboard-org jobId=j1 attempt=2/5 code=X_MAIL_DOWN error="X_MAIL_DOWN: smtp refused"',
      ],
      ['warn', 'jobs.lease.lost jobId=j1'],
      ['debug', 'jobs.claim.empty'],
    ]);
  });

  it("prints ONE line through Nest's ConsoleLogger, even for an error with a multi-line message", async () => {
    const nest = new ConsoleLogger('Jobs', { colors: false, timestamp: false });
    const logger = nestJobsLogger(nest);
    const out = await captured(process.stderr, () =>
      logger.log('error', 'jobs.claim.failed', {
        workerId: 'w1',
        error: new Error('connection terminated\nunexpectedly'),
      }),
    );
    expect(out.endsWith('\n')).toBe(true);
    expect(out.trimEnd().split('\n')).toHaveLength(1);
    expect(out).toMatch(
      /^\[Nest\] \d+ {2}- .+ {3}ERROR \[Jobs\] jobs\.claim\.failed workerId=w1 error="connection terminated\\nunexpectedly"\n$/,
    );
  });
});

describe('nestJobsLogger, json', () => {
  afterEach(() => Logger.overrideLogger([...ALL_LEVELS]));

  it('writes one JSON object per line: time, level, event, then the fields', () => {
    const lines: [string, string][] = [];
    const logger = nestJobsLogger({
      format: 'json',
      now: () => AT,
      write: (line, level) => void lines.push([level, line]),
    });
    logger.log('error', 'jobs.attempt.failed', {
      job: 'onboard-org',
      attempt: 2,
      maxAttempts: 5,
      code: 'X_MAIL_DOWN',
    });
    logger.log('info', 'jobs.worker.started', { queues: ['default'] });
    expect(lines).toEqual([
      [
        'error',
        '{"time":"2026-01-02T03:04:05.006Z","level":"error","event":"jobs.attempt.failed","job":"onboard-org",' +
          '"attempt":2,"maxAttempts":5,"code":"X_MAIL_DOWN"}\n',
      ],
      [
        'info',
        '{"time":"2026-01-02T03:04:05.006Z","level":"info","event":"jobs.worker.started","queues":["default"]}\n',
      ],
    ]);
  });

  it("follows Nest's log levels: a level the app turned off is not written", () => {
    Logger.overrideLogger(['error', 'warn']);
    const lines: string[] = [];
    const logger = nestJobsLogger({ format: 'json', write: (line) => void lines.push(line) });
    logger.log('debug', 'jobs.concurrency.wait', {});
    logger.log('info', 'jobs.worker.started', {});
    logger.log('warn', 'jobs.lease.lost', {});
    expect(lines.map((l) => (JSON.parse(l) as { event: string }).event)).toEqual([
      'jobs.lease.lost',
    ]);
  });

  it("JobsModule's logFormat: 'json' writes to stdout (errors to stderr), one object per line", async () => {
    const config = resolveJobsSettings({
      driver: memoryJobDriver({ clock: frozenClock() }),
      logFormat: 'json',
    });
    const out = await captured(process.stdout, () =>
      config.logger.log('warn', 'jobs.settle.unowned', { jobId: 'j1', why: 'nack' }),
    );
    const err = await captured(process.stderr, () =>
      config.logger.log('error', 'jobs.lease.lost', { jobId: 'j1' }),
    );
    expect(JSON.parse(out)).toMatchObject({
      level: 'warn',
      event: 'jobs.settle.unowned',
      jobId: 'j1',
      why: 'nack',
    });
    expect(JSON.parse(err)).toMatchObject({ level: 'error', event: 'jobs.lease.lost' });
    expect(out.split('\n')).toEqual([expect.any(String), '']);
  });

  it('refuses a logFormat it does not know with X_INVARIANT, before anything opens', () => {
    const options = {
      driver: 'memory',
      logFormat: 'yaml',
    } as unknown as JobsModuleOptions;
    expect(() => resolveJobsSettings(options)).toThrow(
      expect.objectContaining({ code: 'X_INVARIANT' }),
    );
    expect(errorCodeOf(catchSync(() => nestJobsLogger({ format: 'xml' as 'json' })))).toBe(
      'X_INVARIANT',
    );
  });
});

function catchSync(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}
