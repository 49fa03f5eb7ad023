export * from './errors';
export * from './declare/job';
