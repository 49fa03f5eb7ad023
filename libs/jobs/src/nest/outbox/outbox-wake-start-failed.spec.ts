import 'reflect-metadata';
import { Global, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { memoryOutboxStore } from '../../outbox/memory-outbox-store';
import type { OutboxStore } from '../../outbox/outbox-store';
import { outboxRequest } from '../../outbox/testing/outbox-store.conformance';
import { frozenClock } from '../../testing/frozen-clock';
import { JobsModule } from '../jobs.module';
import { OutboxHost } from './outbox.host';
import { OutboxModule } from './outbox.module';

const DATA_SOURCE = 'outbox-wake-start-failed.data-source';

/** The DataSource token OutboxModule asks for; a memory store never reads it. */
@Global()
@Module({ providers: [{ provide: DATA_SOURCE, useValue: {} }], exports: [DATA_SOURCE] })
class DataSourceStandIn {}

/**
 * A store whose `startWake` throws (a bad LISTEN channel, a wake it cannot build): the boot fails with that error, and
 * the relay the host had already started must not stay behind publishing rows in a process whose boot failed.
 */
describe('OutboxHost at bootstrap, with a wake that throws as it starts', () => {
  it('fails the boot and leaves no relay publishing', async () => {
    const clock = frozenClock();
    const store: OutboxStore = {
      ...memoryOutboxStore({ clock }),
      startWake: (): never => {
        throw new TypeError('startQueueWake: bad channel outbox-1');
      },
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
    const host = moduleRef.get(OutboxHost);
    await expect(moduleRef.init()).rejects.toThrow('bad channel outbox-1');
    const leftover = host.relay;
    try {
      await store.stage(outboxRequest());
      await clock.advance(10_000);
      expect((await store.backlog()).count).toBe(1);
      expect(leftover).toBeUndefined();
    } finally {
      leftover?.beginDrain();
      await leftover?.stop(clock.now());
    }
  });
});
