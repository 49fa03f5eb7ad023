export { OutboxInterceptor } from '../outbox.interceptor';
export { currentEntityManager } from './current-entity-manager';
export { OutboxHost } from './outbox.host';
export { OutboxModule } from './outbox.module';
export type {
  OutboxModuleOptions,
  OutboxModuleRelayOptions,
  OutboxStoreFactory,
  ResolvedOutboxModuleOptions,
} from './outbox-module.options';
export { OUTBOX_DATA_SOURCE, OUTBOX_MODULE_OPTIONS } from './outbox.tokens';
export type { OutboxDataSource, OutboxEntityManager, OutboxQueryRunner } from './typeorm-like';
