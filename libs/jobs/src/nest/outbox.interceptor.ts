import {
  Inject,
  Injectable,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { defer, from, lastValueFrom, mergeMap, toArray, type Observable } from 'rxjs';
import { currentOutboxTx, runInOutboxTx } from '../outbox/ambient-tx';
import { OUTBOX_DATA_SOURCE } from './outbox/outbox.tokens';
import type { OutboxDataSource, OutboxQueryRunner } from './outbox/typeorm-like';

/** The metadata key `@Sse()` sets on its route handler (Nest's `SSE_METADATA`, the same in Nest 11 and 12). */
const SSE_METADATA = '__sse__';

/** Whether the route is a server-sent events stream: one that emits for as long as the client listens. */
function isSseRoute(context: ExecutionContext): boolean {
  const handler = context.getHandler() as unknown;
  return typeof handler === 'function' && Reflect.getMetadata(SSE_METADATA, handler) === true;
}

async function rollbackQuietly(runner: OutboxQueryRunner): Promise<void> {
  try {
    if (runner.isTransactionActive) await runner.rollbackTransaction();
  } catch {
    // the handler's error is the one to report; a failed rollback ends with the released connection
  }
}

/**
 * Opens a TypeORM transaction around a request and makes it ambient (`currentOutboxTx()`, `currentEntityManager()`),
 * so the business rows the handler writes through that manager and every `enqueue()` it makes — staged by the outbox
 * facade in the same transaction — commit together after the handler succeeded, or roll back together when it throws.
 * The response is sent only after COMMIT, so a client never sees success for a rolled-back request.
 *
 * Inside a transaction already ambient (a second `OutboxInterceptor`, or `runInOutboxTx`) it joins it instead of
 * opening another. The handler's values are collected and re-emitted after commit (a request handler emits one).
 * An `@Sse()` route is passed through untouched: its stream never completes, so a transaction around it would hold
 * back every event and a pooled connection idle in transaction for as long as the client listens — its enqueues
 * take the outbox's no-transaction path (`mode`), or join a `{ tx }` they name.
 * The `DataSource` is the one `OutboxModule.forRoot({ dataSource: getDataSourceToken() })` names.
 */
@Injectable()
export class OutboxInterceptor implements NestInterceptor {
  constructor(@Inject(OUTBOX_DATA_SOURCE) private readonly dataSource: OutboxDataSource) {}

  /** Runs the handler inside a transaction it commits after, or joins the ambient one; passes `@Sse()` routes through. */
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (currentOutboxTx() !== undefined || isSseRoute(context)) return next.handle();
    return defer(() => this.inTransaction(next)).pipe(mergeMap((values) => from(values)));
  }

  private async inTransaction(next: CallHandler): Promise<unknown[]> {
    const runner = this.dataSource.createQueryRunner();
    try {
      await runner.connect();
      await runner.startTransaction();
      // handle() binds the handler to the async context it is called in: call it inside the scope
      const values = await runInOutboxTx(runner.manager, () =>
        lastValueFrom(next.handle().pipe(toArray())),
      );
      await runner.commitTransaction();
      return values;
    } catch (error) {
      await rollbackQuietly(runner);
      throw error;
    } finally {
      await runner.release();
    }
  }
}
