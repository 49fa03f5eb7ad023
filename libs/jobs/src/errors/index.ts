export * from './jobs-error';
export * from './declaration-errors';
export * from './runtime-errors';
export * from './operator-errors';
export * from './connection-errors';
export * from './value-errors';
export * from './webhook-errors';
export * from './export-errors';
