import 'reflect-metadata';
import { Global, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { memoryOutboxStore } from '../../outbox/memory-outbox-store';
import { outboxRequest } from '../../outbox/testing/outbox-store.conformance';
import { JobsModule } from '../jobs.module';
import { OutboxModule } from './outbox.module';
import { OutboxHost } from './outbox.host';

const DATA_SOURCE = 'outbox-host-quarantine.data-source';

/** The DataSource token OutboxModule asks for; a memory store never reads it. */
@Global()
@Module({ providers: [{ provide: DATA_SOURCE, useValue: {} }], exports: [DATA_SOURCE] })
class DataSourceStandIn {}

describe('OutboxHost: the operator path to quarantined rows', () => {
  it('lists what the relay quarantined and restores it, in a web-only process', async () => {
    const store = memoryOutboxStore();
    const moduleRef = await Test.createTestingModule({
      imports: [
        DataSourceStandIn,
        JobsModule.forRoot({ driver: 'memory', roles: ['web'] }),
        OutboxModule.forRoot({ dataSource: DATA_SOURCE, store, interceptAll: false }),
      ],
    }).compile();
    const app = await moduleRef.init();
    try {
      const [bad, behind] = [outboxRequest({ name: 'bad' }), outboxRequest({ name: 'behind' })];
      await store.stageMany([bad, behind]);
      await store.claim({ claimant: 'relay-a', limit: 10, leaseMs: 30_000 });
      await store.quarantine(bad.id, 'relay-a', 'X_VALUE_INVALID: refused');

      const host = app.get(OutboxHost);
      expect((await host.quarantined()).map((q) => [q.id, q.code, q.error])).toEqual([
        [bad.id, 'X_OUTBOX_QUARANTINED', 'X_VALUE_INVALID: refused'],
        [behind.id, 'X_OUTBOX_HELD_BEHIND', `held behind quarantined row ${bad.id}`],
      ]);
      expect(await host.restore([bad.id, behind.id])).toBe(2);
      expect(await host.quarantined()).toEqual([]);
      expect(await store.retained()).toBe(2);
    } finally {
      await app.close();
    }
  });
});
