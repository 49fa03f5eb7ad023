export * from './t';
