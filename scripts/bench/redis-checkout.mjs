/**
 * The packages of the checkout at `root`, loaded from their TypeScript sources (compiled on load through the specs'
 * swc hook, so no build is needed), and that checkout's ioredis — what the Redis cost benches compare, old against new.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';

export function loadCheckout(root) {
  const require = createRequire(join(root, 'package.json'));
  require(join(root, 'libs', 'jobs-pg', 'test', 'swc-register.js'));
  return {
    jobs: require(join(root, 'libs', 'jobs', 'src', 'index.ts')),
    jobsRedis: require(join(root, 'libs', 'jobs-redis', 'src', 'index.ts')),
    IORedis: require('ioredis').Redis,
  };
}
