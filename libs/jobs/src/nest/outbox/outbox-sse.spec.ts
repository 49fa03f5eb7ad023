import 'reflect-metadata';
import { get, type ClientRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  Controller,
  Global,
  Module,
  Sse,
  type INestApplication,
  type MessageEvent,
} from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Subject, type Observable } from 'rxjs';
import { DataSource } from 'typeorm';
import { testDatabaseUrl } from '../../../../../test/test-env';
import { memoryOutboxStore } from '../../outbox/memory-outbox-store';
import { JobsModule } from '../jobs.module';
import { OutboxModule } from './outbox.module';

const APPLICATION_NAME = 'outbox-sse-spec';
const ticks = new Subject<MessageEvent>();

/** A stream that never completes: the shape of every server-sent events route. */
@Controller('events')
class EventsController {
  @Sse()
  stream(): Observable<MessageEvent> {
    return ticks.asObservable();
  }
}

/**
 * `OutboxModule.forRoot()` installs `OutboxInterceptor` on every route by default, SSE routes included. An SSE stream
 * does not complete: a transaction around it would hold back every event until the stream ends, and hold a pooled
 * connection idle in transaction for as long as the client listens.
 */
describe('OutboxInterceptor on a server-sent events route (interceptAll)', () => {
  let dataSource: DataSource;
  let app: INestApplication | undefined;
  let open: ClientRequest | undefined;

  beforeAll(async () => {
    dataSource = new DataSource({
      type: 'postgres',
      url: testDatabaseUrl(),
      applicationName: APPLICATION_NAME,
    });
    await dataSource.initialize();
  });
  afterAll(async () => {
    await dataSource?.destroy();
  });
  afterEach(async () => {
    open?.destroy();
    open = undefined;
    await app?.close();
    app = undefined;
  });

  const idleInTransaction = async (): Promise<number> => {
    const rows = (await dataSource.query(
      `select count(*)::int as n from pg_stat_activity
       where application_name = $1 and state like 'idle in transaction%'`,
      [APPLICATION_NAME],
    )) as { n: number }[];
    return rows[0]?.n ?? 0;
  };

  it('streams each event as it is emitted, holding no transaction open', async () => {
    @Global()
    @Module({ providers: [{ provide: DataSource, useValue: dataSource }], exports: [DataSource] })
    class DataSourceModule {}
    const moduleRef = await Test.createTestingModule({
      imports: [
        DataSourceModule,
        JobsModule.forRoot({ driver: 'memory', roles: ['web'] }),
        OutboxModule.forRoot({ dataSource: DataSource, store: memoryOutboxStore() }),
      ],
      controllers: [EventsController],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.listen(0, '127.0.0.1');
    const { port } = app.getHttpServer().address() as AddressInfo;

    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      open = get({ host: '127.0.0.1', port, path: '/events' }, resolve);
      open.on('error', reject);
    });
    expect(response.statusCode).toBe(200);
    let received = '';
    const first = new Promise<string>((resolve) => {
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        received += chunk;
        if (received.includes('\n\n')) resolve(received);
      });
    });
    ticks.next({ data: 'tick-1' });
    // a real socket: bounded by a real wait, the event arrives in a few ms when it is not held back
    let bound: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      first,
      new Promise<string>((resolve) => {
        bound = setTimeout(() => resolve('(nothing within 2 s)'), 2_000);
      }),
    ]).finally(() => clearTimeout(bound));
    expect(outcome).toContain('data: tick-1');
    expect(await idleInTransaction()).toBe(0);
  });
});
