export * from './outbox-store';
export * from './memory-outbox-store';
export * from './outbox-facade';
export { currentOutboxTx, runInOutboxTx } from './ambient-tx';
export * from './relay/relay-options';
export { type OutboxPassResult } from './relay/relay-pass';
export * from './relay/outbox-relay';
