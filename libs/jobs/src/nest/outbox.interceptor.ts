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
 * The `DataSource` is the one `OutboxModule.forRoot({ dataSource: getDataSourceToken() })` names.
 */
@Injectable()
export class OutboxInterceptor implements NestInterceptor {
  constructor(@Inject(OUTBOX_DATA_SOURCE) private readonly dataSource: OutboxDataSource) {}

  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (currentOutboxTx() !== undefined) return next.handle();
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
