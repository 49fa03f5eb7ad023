import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { JobsAdminModule } from '../../src/admin/admin.module';
import type { JobsAdminOptions } from '../../src/admin/admin.options';
import { JobsModule } from '../../src/nest/jobs.module';
import { other } from './admin-app';

/** What {@link adminMemoryApps} gives a spec. */
export interface AdminMemoryApps {
  /** Boots the test's app: a `web` process on the memory backend serving `other`, with the admin mounted. */
  boot(options: JobsAdminOptions): Promise<INestApplication>;
  /** The app the test booted. */
  readonly app: INestApplication;
}

/**
 * The set-up the admin API specs share, registered in the enclosing `describe`: a stand-in asset folder named
 * `assetsPrefix…` for its tests, and the app a test boots (`JobsAdminModule.forRoot(options)`), closed after it.
 */
export function adminMemoryApps(assetsPrefix: string): AdminMemoryApps {
  let app: INestApplication | undefined;
  let assets = '';
  beforeAll(async () => {
    assets = await mkdtemp(join(tmpdir(), assetsPrefix));
    await writeFile(join(assets, 'admin.js'), 'export {};');
  });
  afterAll(() => rm(assets, { recursive: true, force: true }));
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });
  const boot = async (options: JobsAdminOptions): Promise<INestApplication> => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        JobsModule.forRoot({ driver: 'memory', roles: ['web'] }),
        JobsModule.forFeature({ jobs: [{ other }] }),
        JobsAdminModule.forRoot({ assetsDir: assets, ...options }),
      ],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    return app;
  };
  return {
    boot,
    get app() {
      if (app === undefined) throw new Error('adminMemoryApps: no app booted in this test');
      return app;
    },
  };
}
