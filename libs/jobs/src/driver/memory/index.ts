export { memoryJobDriver } from './memory-driver';
export type { MemoryJobDriver, MemoryJobDriverOptions } from './memory-driver';
export { MEMORY_CAPABILITIES, memoryBackend } from './memory-backend';
export type { MemoryBackend, MemoryBackendOptions } from './memory-backend';
