import { Module, type DynamicModule, type Provider } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { InvariantError } from '../../errors/runtime-errors';
import { OutboxInterceptor } from '../outbox.interceptor';
import type { OutboxModuleOptions, ResolvedOutboxModuleOptions } from './outbox-module.options';
import { OutboxHost } from './outbox.host';
import { OUTBOX_DATA_SOURCE, OUTBOX_MODULE_OPTIONS } from './outbox.tokens';
import type { OutboxDataSource } from './typeorm-like';

function resolve(
  options: OutboxModuleOptions,
  dataSource: OutboxDataSource,
): ResolvedOutboxModuleOptions {
  const store = typeof options.store === 'function' ? options.store(dataSource) : options.store;
  return { store, mode: options.mode ?? 'optional', relay: options.relay ?? {} };
}

/**
 * The transactional outbox for a Nest app that uses `JobsModule` and `@nestjs/typeorm`:
 *
 * ```ts
 * OutboxModule.forRoot({
 *   dataSource: getDataSourceToken(),
 *   store: (dataSource) => postgresOutboxStore({ executor: typeormExecutor(dataSource) }),
 * })
 * ```
 *
 * It installs `OutboxInterceptor` on every route (unless `interceptAll: false` — then `@UseInterceptors` it where
 * wanted, in a module importing this one), puts `outboxJobsFacade` in charge of `enqueue()`, and runs the relay in a
 * process holding the `relay` role. Deliberately NOT global: its bootstrap must run after `JobsModule`'s.
 */
@Module({})
export class OutboxModule {
  /** The outbox module for `{ dataSource, store }`; throws `X_INVARIANT` when either is missing. */
  static forRoot(options: OutboxModuleOptions): DynamicModule {
    if (options?.dataSource === undefined || options.store === undefined) {
      throw new InvariantError(
        'OutboxModule.forRoot() needs { dataSource, store }.',
        'Pass dataSource: getDataSourceToken() and a store (postgresOutboxStore(...) or a factory of one).',
      );
    }
    const providers: Provider[] = [
      { provide: OUTBOX_DATA_SOURCE, useExisting: options.dataSource },
      {
        provide: OUTBOX_MODULE_OPTIONS,
        useFactory: (dataSource: OutboxDataSource) => resolve(options, dataSource),
        inject: [OUTBOX_DATA_SOURCE],
      },
      OutboxInterceptor,
      OutboxHost,
    ];
    if (options.interceptAll !== false) {
      providers.push({ provide: APP_INTERCEPTOR, useExisting: OutboxInterceptor });
    }
    return {
      module: OutboxModule,
      providers,
      exports: [OutboxInterceptor, OutboxHost, OUTBOX_DATA_SOURCE],
    };
  }
}
