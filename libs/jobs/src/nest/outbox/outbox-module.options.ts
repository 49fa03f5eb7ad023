import type { InjectionToken } from '@nestjs/common';
import type { OutboxMode } from '../../outbox/outbox-facade';
import type { OutboxStore } from '../../outbox/outbox-store';
import type { OutboxRelayOptions } from '../../outbox/relay/relay-options';
import type { OutboxDataSource } from './typeorm-like';

/** The relay knobs `OutboxModule.forRoot({ relay })` passes on to `outboxRelay()`. */
export type OutboxModuleRelayOptions = Pick<
  OutboxRelayOptions,
  'intervalMs' | 'idlePollMaxMs' | 'batch' | 'claimLeaseMs' | 'claimant' | 'maxPublishAttempts'
>;

/**
 * Builds the store from the resolved `DataSource`. A method type on purpose: its parameter is checked bivariantly, so a
 * factory annotated with TypeORM's own `DataSource` is accepted as well as one typed {@link OutboxDataSource}.
 */
export type OutboxStoreFactory = {
  bivarianceHack(dataSource: OutboxDataSource): OutboxStore;
}['bivarianceHack'];

/** Options of `OutboxModule.forRoot()`. */
export interface OutboxModuleOptions {
  /** The app's `DataSource` token: `getDataSourceToken()` (or `getDataSourceToken('name')`) from `@nestjs/typeorm`. */
  readonly dataSource: InjectionToken;
  /**
   * Where enqueues inside a transaction are staged: a store, or a factory given the resolved `DataSource` —
   * `(dataSource) => postgresOutboxStore({ executor: typeormExecutor(dataSource) })`. The `DataSource` is typed
   * structurally ({@link OutboxDataSource}): `typeorm` stays an optional peer. A store with its own wake
   * ({@link OutboxStore.startWake}: `postgresOutboxStore({ …, wakeUrl })`) wakes the relay on commit whatever the job
   * driver; otherwise the job backend's wake does (the `'postgres'` driver's), or only the poll.
   */
  readonly store: OutboxStore | OutboxStoreFactory;
  /** An enqueue outside any transaction: publish directly (`optional`, the default) or `X_OUTBOX_NO_TX`. */
  readonly mode?: OutboxMode;
  /** Install `OutboxInterceptor` on every route (`APP_INTERCEPTOR`; default true). */
  readonly interceptAll?: boolean;
  /** Relay knobs, used when the process holds the `relay` role. */
  readonly relay?: OutboxModuleRelayOptions;
}

/** The options with the store resolved. */
export interface ResolvedOutboxModuleOptions {
  /** The store, built from the `DataSource` when a factory was passed. */
  readonly store: OutboxStore;
  /** What an enqueue outside any transaction does (default `'optional'`: publish directly). */
  readonly mode: OutboxMode;
  /** The relay knobs (default `{}`: the relay's own defaults). */
  readonly relay: OutboxModuleRelayOptions;
}
