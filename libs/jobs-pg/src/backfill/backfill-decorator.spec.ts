import { Inject, Injectable } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { DataSource } from 'typeorm';
import {
  Backfill,
  backfillHandleOf,
  JobsModule,
  memoryBackend,
  memoryBackfillLedger,
  memoryJobDriver,
  recordingLogger,
  registeredBackfills,
  type BackfillHandleArgs,
  type BackfillSourceArgs,
} from '@ultimat3/jobs';
import { frozenClock } from '@ultimat3/jobs/testing';
import { BfPost } from '../../test/backfill-posts';
import { postsSpec } from '../../test/posts-spec';

const posts = postsSpec({ seed: 20 });
const clock = frozenClock();
const ledger = memoryBackfillLedger();

@Backfill({
  name: 'decorated-slugs',
  batch: 7,
  rate: 100,
  tenant: 'none',
  clock,
  runtime: { ledger, environment: 'test' },
})
@Injectable()
class DecoratedSlugs {
  constructor(@Inject(DataSource) private readonly posts: DataSource) {}

  source(_args: BackfillSourceArgs) {
    return this.posts.getRepository(BfPost).createQueryBuilder('p').where('p.slug is null');
  }

  async handle({ rows }: BackfillHandleArgs<BfPost>) {
    await this.posts.query(
      `update bf_posts set slug = 'post-' || id, handled = handled + 1 where id = any($1::int[])`,
      [rows.map((r) => r.id)],
    );
  }

  count() {
    return this.posts
      .getRepository(BfPost)
      .createQueryBuilder('p')
      .where('p.slug is null')
      .getCount();
  }
}

/** No runtime of its own: it records into the ledger of the backend the module runs on. */
@Backfill({ name: 'decorated-on-backend', batch: 50, tenant: 'none', clock })
@Injectable()
class OnBackend {
  readonly seen: number[] = [];
  source() {
    return { repository: posts.data.getRepository(BfPost), where: { published: false } };
  }
  handle({ rows }: BackfillHandleArgs<BfPost>) {
    this.seen.push(...rows.map((r) => r.id));
  }
}

@Backfill({ name: 'decorated-never-provided', tenant: 'none', runtime: { environment: 'test' } })
class NeverProvided {
  source() {
    return posts.data.getRepository(BfPost).createQueryBuilder('p');
  }
  handle() {
    return undefined;
  }
}

describe('@Backfill on a Nest provider', () => {
  let app: TestingModule | undefined;
  afterEach(async () => {
    await app?.close();
  });

  it('binds the provider: its injected DataSource sweeps, and a class declared but never provided is reported', async () => {
    const logger = recordingLogger();
    app = await Test.createTestingModule({
      imports: [
        JobsModule.forRoot({
          driver: memoryJobDriver({ clock }),
          clock,
          logger,
          roles: ['worker'],
          retention: false,
        }),
      ],
      providers: [{ provide: DataSource, useValue: posts.data }, DecoratedSlugs],
    }).compile();
    await app.init();

    expect(logger.named('jobs.backfill.unbound').map((e) => e.fields)).toEqual([
      expect.objectContaining({ backfill: 'decorated-on-backend', binder: OnBackend.name }),
      expect.objectContaining({ backfill: 'decorated-never-provided', binder: NeverProvided.name }),
    ]);
    const { id } = await backfillHandleOf(DecoratedSlugs).enqueue({});
    for (let i = 0; i < 2_000; i++) {
      if ((await ledger.byJob(id))?.status === 'completed') break;
      await clock.advance(50);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    expect(await ledger.byJob(id)).toMatchObject({ status: 'completed', rows: 20, batches: 3 });
    const rows = await posts.data.query<{ n: number }[]>(
      `select count(*)::int as n from bf_posts where slug = 'post-' || id and handled = 1`,
    );
    expect(rows[0]?.n).toBe(20);
  });

  it('records into the ledger of the backend JobsModule runs on (JobsBackend.backfills)', async () => {
    const backend = memoryBackend({ clock });
    app = await Test.createTestingModule({
      imports: [JobsModule.forRoot({ backend, clock, roles: ['worker'], retention: false })],
      providers: [OnBackend],
    }).compile();
    await app.init();
    const first = await backfillHandleOf(OnBackend).enqueue({});
    const ledgerOf = backend.backfills;
    for (let i = 0; i < 2_000; i++) {
      if ((await ledgerOf?.byJob(first.id))?.status === 'completed') break;
      await clock.advance(50);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    expect(await ledgerOf?.byJob(first.id)).toMatchObject({
      status: 'completed',
      rows: 6,
      batches: 1,
    });
    expect(app.get(OnBackend).seen).toEqual([3, 6, 9, 12, 15, 18]);
  });

  it('hashes the class methods, not the wrappers that call them', () => {
    const [slugs, , never] = registeredBackfills();
    expect(slugs).toMatchObject({ name: 'decorated-slugs', counts: true, batch: 7 });
    expect(never).toMatchObject({ name: 'decorated-never-provided', counts: false });
    expect(slugs?.checksum).not.toBe(never?.checksum);
  });

  it('refuses a class without source() or handle() where it is declared', () => {
    expect(() =>
      Backfill({ name: 'decorated-broken', tenant: 'none' })(
        class NoHandle {
          source() {
            return posts.data.getRepository(BfPost).createQueryBuilder('p');
          }
        } as never,
      ),
    ).toThrow(expect.objectContaining({ code: 'X_BACKFILL_DECLARATION_INVALID' }));
  });
});
