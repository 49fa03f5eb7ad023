import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import {
  Injectable,
  type CanActivate,
  type ExecutionContext,
  type INestApplication,
} from '@nestjs/common';
import { Test } from '@nestjs/testing';
import {
  backfill,
  job,
  JobsAdminModule,
  JobsModule,
  t,
  task,
  type JobsAdminOptions,
} from '@ultimat3/jobs';

/** What the browser specs' users send: `authorization: Bearer writer | reader`. */
export const WRITER = { authorization: 'Bearer writer' } as const;
export const READER = { authorization: 'Bearer reader' } as const;

/** The app's guard: only the two known users pass. */
@Injectable()
export class BearerGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const auth = context.switchToHttp().getRequest<{ headers: Record<string, unknown> }>()
      .headers.authorization;
    return auth === WRITER.authorization || auth === READER.authorization;
  }
}

/** Whether a flaky run succeeds: false until the test heals it (what an operator's fix would be). */
export const flakyState = { healed: false };

/** Two steps, then a failure until healed: one attempt, so it lands in the dead-letter queue. */
export const flaky = job({
  name: 'admin.flaky',
  queue: 'work',
  input: t.object({ order: t.string, card: t.string }),
  idempotencyKey: ({ order }) => order,
  tenant: 'none',
  retry: { attempts: 1 },
  redact: ['card'],
  run: async ({ input, step }) => {
    await step.run('fetch', () => `fetched ${input.order}`);
    await step.run('transform', () => 'transformed');
    if (!flakyState.healed) throw new Error('the payment provider answered 502');
    return 'ok';
  },
});

/** A plain job on the queue the pause test stops. */
export const quick = job({
  name: 'admin.quick',
  queue: 'work',
  input: t.object({ n: t.number }),
  idempotencyKey: ({ n }) => String(n),
  tenant: 'none',
  run: ({ input }) => input.n,
});

/** A plain job on another queue the same worker serves. */
export const other = job({
  name: 'admin.other',
  queue: 'other',
  input: t.object({ n: t.number }),
  idempotencyKey: ({ n }) => String(n),
  tenant: 'none',
  run: ({ input }) => input.n,
});

/** A job enqueued an hour ahead: its rows stay `delayed` for the whole test. */
export const later = job({
  name: 'admin.later',
  queue: 'later',
  input: t.object({ n: t.number }),
  idempotencyKey: ({ n }) => String(n),
  tenant: 'none',
  run: ({ input }) => input.n,
});

/** A nightly task (the app runs no scheduler role: it is listed, never fired). */
export const nightly = task({
  name: 'admin.nightly',
  cron: '0 3 * * *',
  tz: 'UTC',
  enqueue: (occurrenceMs) => [[later, { n: occurrenceMs }]],
});

/** A sweep the app declares and never runs: the backfills view lists it as not swept. */
export const slugs = backfill({
  name: 'admin-slugs',
  tenant: 'none',
  source: (): never => {
    throw new Error('the admin specs never run a pass');
  },
  handle: () => undefined,
});

/** A running app: its base URL (http://localhost:port) and the admin page's. */
export interface AdminApp {
  readonly app: INestApplication;
  readonly origin: string;
  readonly page: string;
  close(): Promise<void>;
}

/** The app on `databaseUrl`: JobsModule (web + worker roles) and the admin page at `/_x/jobs`, listening on a free port. */
export async function startAdminApp(
  databaseUrl: string,
  admin: Partial<JobsAdminOptions> = {},
): Promise<AdminApp> {
  const moduleRef = await Test.createTestingModule({
    imports: [
      JobsModule.forRoot({
        driver: 'postgres',
        postgres: { url: databaseUrl, poolSize: 6 },
        roles: ['web', 'worker'],
        worker: { pollIntervalMs: 20, idlePollMaxMs: 100 },
      }),
      JobsModule.forFeature({
        jobs: [{ flaky, quick, other, later, slugs }],
        tasks: [{ nightly }],
      }),
      JobsAdminModule.forRoot({
        path: '/_x/jobs',
        guard: BearerGuard,
        canWrite: (request) => request.headers.authorization === WRITER.authorization,
        pollMs: 250,
        ...admin,
      }),
    ],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  const origin = `http://localhost:${port}`;
  return { app, origin, page: `${origin}/_x/jobs`, close: () => app.close() };
}
