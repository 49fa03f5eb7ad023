import type { INestApplication } from '@nestjs/common';
import { Test, type TestingModuleBuilder } from '@nestjs/testing';
import { getDataSourceToken } from '@nestjs/typeorm';
import { JOBS_MODULE_OPTIONS, type JobsModuleOptions } from '@ultimat3/jobs';
import type { DataSource } from 'typeorm';
import { AppModule } from '../../src/app.module';

/** The example's `JobsModule` options in a test: as they are, or made from the app's TypeORM DataSource. */
export type ExampleJobsOptions =
  JobsModuleOptions | ((dataSource: DataSource) => JobsModuleOptions);

/**
 * Boots the example app (`AppModule`, Nest's own logger off) with its `JobsModule` options replaced by `jobs`;
 * `override` replaces further providers before the module compiles. Close the answer when done.
 */
export async function startExampleApp(
  jobs: ExampleJobsOptions,
  override: (builder: TestingModuleBuilder) => TestingModuleBuilder = (builder) => builder,
): Promise<INestApplication> {
  const builder = Test.createTestingModule({ imports: [AppModule] }).overrideProvider(
    JOBS_MODULE_OPTIONS,
  );
  const withJobs =
    typeof jobs === 'function'
      ? builder.useFactory({ inject: [getDataSourceToken()], factory: jobs })
      : builder.useValue(jobs);
  const moduleRef = await override(withJobs).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.init();
  return app;
}
