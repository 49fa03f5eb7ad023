export { memoryJobDriver } from './memory-driver';
export type { MemoryJobDriver, MemoryJobDriverOptions } from './memory-driver';
