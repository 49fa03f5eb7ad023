import 'reflect-metadata';
import {
  Body,
  Controller,
  Get,
  NotFoundException,
  Param,
  Post,
  UseFilters,
  type INestApplication,
  type LoggerService,
} from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { job } from '../../declare/job';
import { memoryJobDriver } from '../../driver/memory';
import { DriverUnavailableError } from '../../errors/runtime-errors';
import { t } from '../../schema';
import { frozenClock } from '../../testing/frozen-clock';
import { recordingLogger, type RecordingLogger } from '../../util/logger';
import { JobsModule } from '../jobs.module';
import { JobsService } from '../jobs.service';
import { JobsErrorFilter } from './jobs-error.filter';

const signup = job({
  name: 'http-filter.signup',
  input: t.object({ email: t.string.min(3), address: t.object({ city: t.string.min(1) }) }),
  idempotencyKey: ({ email }) => `signup:${email}`,
  tenant: 'none',
});
type Signup = { email: string; address: { city: string } };

@Controller()
class SignupController {
  constructor(private readonly jobs: JobsService) {}

  @Post('signup')
  one(@Body() body: Signup) {
    return this.jobs.enqueue(signup, body, { onConflict: 'error' });
  }

  @Post('signups')
  many(@Body() body: Signup[]) {
    return this.jobs.enqueueMany(signup, body);
  }

  @Post('jobs/:id/requeue')
  requeue(@Param('id') id: string) {
    return this.jobs.driver.introspect?.requeue(id);
  }

  @Get('down')
  down(): never {
    throw new DriverUnavailableError();
  }

  @Get('missing')
  missing(): never {
    throw new NotFoundException('not a jobs error');
  }
}

@Controller('scoped')
@UseFilters(JobsErrorFilter)
class ScopedController {
  @Post()
  one(@Body() body: Signup) {
    return signup.enqueue(body);
  }
}

@Controller('hand-made')
@UseFilters(new JobsErrorFilter())
class HandMadeFilterController {
  @Post()
  one(@Body() body: Signup) {
    return signup.enqueue(body);
  }

  @Get('down')
  down(): never {
    throw new DriverUnavailableError();
  }
}

/** Nest's log lines at `error`, as the app's logger received them. */
function capturingLogger(): LoggerService & { errors: string[] } {
  const errors: string[] = [];
  const ignore = (): void => undefined;
  return { errors, log: ignore, warn: ignore, error: (m: unknown) => void errors.push(String(m)) };
}

async function boot(
  httpErrors: boolean | undefined,
  controllers: (new (...args: never[]) => object)[],
): Promise<{ app: INestApplication; errors: string[]; jobsLog: RecordingLogger }> {
  const clock = frozenClock();
  const jobsLog = recordingLogger();
  const moduleRef = await Test.createTestingModule({
    imports: [
      JobsModule.forRoot({
        driver: memoryJobDriver({ clock }),
        clock,
        logger: jobsLog,
        roles: ['web'],
        ...(httpErrors === undefined ? {} : { httpErrors }),
      }),
    ],
    controllers,
  }).compile();
  const app = moduleRef.createNestApplication();
  const logger = capturingLogger();
  app.useLogger(logger);
  await app.init();
  return { app, errors: logger.errors, jobsLog };
}

const valid = (email: string): Signup => ({ email, address: { city: 'Lyon' } });

describe('JobsErrorFilter through JobsModule.forRoot({ httpErrors: true }) (Express)', () => {
  let app: INestApplication;
  let jobsLog: RecordingLogger;
  beforeAll(async () => {
    ({ app, jobsLog } = await boot(true, [SignupController]));
  });
  afterAll(async () => {
    await app?.close();
  });

  it('answers an invalid input 400 with the code, the fix and every issue path', async () => {
    const res = await request(app.getHttpServer())
      .post('/signup')
      .send({ email: 'a', address: { city: '' } })
      .expect(400);
    expect(res.body).toEqual({
      statusCode: 400,
      code: 'X_JOB_INPUT_INVALID',
      message: expect.stringContaining('http-filter.signup'),
      fix: expect.any(String),
      issues: [
        { path: 'email', message: expect.any(String) },
        { path: 'address.city', message: expect.any(String) },
      ],
    });
  });

  it('answers an enqueueMany with bad items 400, each issue carrying its item index', async () => {
    const res = await request(app.getHttpServer())
      .post('/signups')
      .send([valid('ok@x.io'), { email: 'ok2@x.io', address: {} }])
      .expect(400);
    expect(res.body).toMatchObject({
      code: 'X_JOB_INPUT_INVALID',
      issues: [{ index: 1, path: 'address.city', message: expect.any(String) }],
    });
    const ok = await request(app.getHttpServer())
      .post('/signups')
      .send([valid('m1@x.io'), valid('m2@x.io')])
      .expect(201);
    expect(ok.body).toEqual([
      { id: expect.any(String), runId: expect.any(String), deduped: false },
      { id: expect.any(String), runId: expect.any(String), deduped: false },
    ]);
  });

  it("answers a duplicate under onConflict: 'error' 409", async () => {
    await request(app.getHttpServer()).post('/signup').send(valid('dup@x.io')).expect(201);
    const res = await request(app.getHttpServer())
      .post('/signup')
      .send(valid('dup@x.io'))
      .expect(409);
    expect(res.body).toMatchObject({ statusCode: 409, code: 'X_JOB_DUPLICATE' });
  });

  it('answers an unknown job id 404', async () => {
    const res = await request(app.getHttpServer())
      .post('/jobs/0190a0a0-0000-7000-8000-0000000000ff/requeue')
      .expect(404);
    expect(res.body).toMatchObject({ statusCode: 404, code: 'X_JOB_NOT_FOUND' });
  });

  it('answers driver unavailable 503 with the code only, and logs the detail through the module logger', async () => {
    const res = await request(app.getHttpServer()).get('/down').expect(503);
    expect(res.body).toEqual({
      statusCode: 503,
      code: 'X_DRIVER_UNAVAILABLE',
      message: 'Service Unavailable',
    });
    expect(jobsLog.named('jobs.http.failed')).toEqual([
      {
        level: 'error',
        event: 'jobs.http.failed',
        fields: {
          status: 503,
          method: 'GET',
          path: '/down',
          error: expect.any(DriverUnavailableError),
        },
      },
    ]);
  });

  it('leaves errors that are not JobsErrors to Nest', async () => {
    const res = await request(app.getHttpServer()).get('/missing').expect(404);
    expect(res.body).toMatchObject({ statusCode: 404, message: 'not a jobs error' });
    expect(res.body).not.toHaveProperty('code');
  });
});

describe('JobsErrorFilter registration', () => {
  it('is not registered by default: a JobsError stays a 500', async () => {
    const { app } = await boot(undefined, [SignupController]);
    try {
      await request(app.getHttpServer()).post('/signup').send({ email: 'a' }).expect(500);
    } finally {
      await app.close();
    }
  });

  it('is registered by forRootAsync({ httpErrors: true }) too', async () => {
    const clock = frozenClock();
    const moduleRef = await Test.createTestingModule({
      imports: [
        JobsModule.forRootAsync({
          httpErrors: true,
          useFactory: () => ({
            driver: memoryJobDriver({ clock }),
            clock,
            roles: ['web' as const],
          }),
        }),
      ],
      controllers: [SignupController],
    }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    try {
      await request(app.getHttpServer()).post('/signup').send({ email: 'a' }).expect(400);
    } finally {
      await app.close();
    }
  });

  it('applies where @UseFilters(JobsErrorFilter) puts it, injected or built by hand', async () => {
    const { app, errors } = await boot(false, [
      SignupController,
      ScopedController,
      HandMadeFilterController,
    ]);
    try {
      await request(app.getHttpServer()).post('/signup').send({ email: 'a' }).expect(500);
      for (const path of ['/scoped', '/hand-made']) {
        const res = await request(app.getHttpServer()).post(path).send({ email: 'a' }).expect(400);
        expect(res.body).toMatchObject({
          code: 'X_JOB_INPUT_INVALID',
          issues: [{ path: 'email' }, { path: 'address' }],
        });
      }
      // built by hand, it has no module logger: the 5xx goes to Nest's Logger as one formatted line
      await request(app.getHttpServer()).get('/hand-made/down').expect(503);
      const line = errors.find((e) => e.startsWith('jobs.http.failed status=503'));
      expect(line).toMatch(/method=GET path=\/hand-made\/down error="X_DRIVER_UNAVAILABLE: /);
      expect(line).not.toContain('\n');
    } finally {
      await app.close();
    }
  });
});
