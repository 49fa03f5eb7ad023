import { Injectable } from '@nestjs/common';
import type { BackfillSource } from '../../backfill/keyset-source';
import { Backfill, type BackfillProvider } from './backfill.decorator';
import { boot, closeBooted } from '../../../test/nest-boot';

/**
 * A `@Backfill` provider is bound to the running app's instance and released when the app closes: a closed app's
 * instance (and the DataSource it holds) must not keep serving the pass, nor hide the class from the boot report of
 * a later app that does not provide it.
 */
@Backfill({ name: 'backfill-binding-spec.slugs', batch: 10, tenant: 'none' })
@Injectable()
class Slugs implements BackfillProvider {
  source(): BackfillSource<unknown> {
    throw new Error('no pass runs in this spec');
  }
  handle(): void {}
}

afterEach(closeBooted);

describe('@Backfill binding', () => {
  it('binds the provided instance, and releases it at close: a later app without the provider reports it unbound', async () => {
    const serving = await boot({ providers: [Slugs] });
    expect(serving.logger.named('jobs.backfill.unbound')).toHaveLength(0);
    await closeBooted();

    const without = await boot({});
    expect(without.logger.named('jobs.backfill.unbound')).toEqual([
      expect.objectContaining({
        level: 'warn',
        fields: expect.objectContaining({
          backfill: 'backfill-binding-spec.slugs',
          binder: 'Slugs',
        }) as unknown,
      }),
    ]);
  });
});
