import 'reflect-metadata';
import { expectClosedByDeadline } from '../../../test/closed-by-deadline';
import { Global, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { memoryOutboxStore } from '../../outbox/memory-outbox-store';
import type { OutboxStore } from '../../outbox/outbox-store';
import { frozenClock } from '../../testing/frozen-clock';
import { JobsModule } from '../jobs.module';
import { OutboxModule } from './outbox.module';

const DATA_SOURCE = 'outbox-wake-stop.data-source';

/** The DataSource token OutboxModule asks for; a memory store never reads it. */
@Global()
@Module({ providers: [{ provide: DATA_SOURCE, useValue: {} }], exports: [DATA_SOURCE] })
class DataSourceStandIn {}

/**
 * A relay's wake whose stop never settles: the LISTEN session's goodbye to a server gone silent (a partition — the
 * client's end() waits for a FIN that never comes). The shutdown's deadline bounds every wait of the close phase.
 */
describe('OutboxHost at shutdown, with a wake whose stop hangs', () => {
  it('stops the relay and lets the shutdown finish by its deadline', async () => {
    const clock = frozenClock();
    let stopsAsked = 0;
    const store: OutboxStore = {
      ...memoryOutboxStore({ clock }),
      startWake: () => ({
        stop: () => {
          stopsAsked += 1;
          return new Promise<void>(() => undefined);
        },
      }),
    };
    const moduleRef = await Test.createTestingModule({
      imports: [
        DataSourceStandIn,
        JobsModule.forRoot({
          driver: 'memory',
          clock,
          roles: ['web', 'relay'],
          retention: false,
          shutdown: { deadlineMs: 1_000 },
        }),
        OutboxModule.forRoot({ dataSource: DATA_SOURCE, store, interceptAll: false }),
      ],
    }).compile();
    const app = await moduleRef.init();

    await expectClosedByDeadline(app, clock, 1_000, () => expect(stopsAsked).toBe(1));
  });
});
