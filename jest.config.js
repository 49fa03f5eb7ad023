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
  testMatch: ['<rootDir>/{libs,apps,chaos,test}/**/*.spec.ts'],
  // no test sends traffic off this machine: a connect to a non-loopback address fails the test (test/connect-jail.ts)
  setupFilesAfterEnv: ['<rootDir>/test/jail-setup.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  globalSetup: '<rootDir>/test/global-setup.mjs',
  globalTeardown: '<rootDir>/test/global-teardown.mjs',
};
