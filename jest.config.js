/** Jest runs TypeScript through @swc/jest with decorator metadata, and transforms the ESM-only @nestjs packages. */
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
  },
];

module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.(t|j|mj)sx?$': swc },
  transformIgnorePatterns: ['/node_modules/(?!(@nestjs)/)'],
  moduleNameMapper: {
    '^@ultimat3/jobs$': '<rootDir>/libs/jobs/src/index.ts',
    '^@ultimat3/jobs/testing$': '<rootDir>/libs/jobs/src/testing/index.ts',
    '^@ultimat3/jobs-pg$': '<rootDir>/libs/jobs-pg/src/index.ts',
    '^@ultimat3/jobs-redis$': '<rootDir>/libs/jobs-redis/src/index.ts',
    '^@ultimat3/example-jobs$': '<rootDir>/libs/example-jobs/src/index.ts',
  },
  testTimeout: 30_000,
  // On 2 cores jest resolves to one worker and would run every file in its own process, in band: each file's VM
  // context stays reachable there (Node keeps them), the heap grew ~10 MB a file, and the files late in a run paid for
  // it in collections — the frozen-clock scenario (runtime/scenario.spec.ts), 1-2 s alone, took 11-25 s as the 291st
  // file and once passed its 30 s timeout. A limit makes jest run the files in a worker and replace it once its heap
  // outgrows this between two files.
  workerIdleMemoryLimit: '768MB',
  testMatch: ['<rootDir>/{libs,apps,chaos,test}/**/*.spec.ts'],
  // no test sends traffic off this machine: a connect to a non-loopback address fails the test (test/connect-jail.ts)
  setupFilesAfterEnv: ['<rootDir>/test/jail-setup.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  globalSetup: '<rootDir>/test/global-setup.mjs',
  globalTeardown: '<rootDir>/test/global-teardown.mjs',
};
