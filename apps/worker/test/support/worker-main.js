/**
 * `node -r libs/jobs-pg/test/swc-register.js worker-main.js`: runs apps/worker's own `main.ts` from source — the real
 * worker process, with its three roles, TypeORM and no keep-alive — mapping `@ultimat3/example-jobs` to its sources as
 * jest does (swc-register.js maps the libs), so no `dist/` is involved.
 */
'use strict';

const Module = require('node:module');
const path = require('node:path');

const EXAMPLE_JOBS = path.join(
  __dirname,
  '..',
  '..',
  '..',
  '..',
  'libs',
  'example-jobs',
  'src',
  'index.ts',
);
const resolve = Module._resolveFilename;
Module._resolveFilename = function resolveExampleJobs(request, ...rest) {
  return resolve.call(this, request === '@ultimat3/example-jobs' ? EXAMPLE_JOBS : request, ...rest);
};

// a free port for its /health and /metrics listener: tests may run beside another worker
process.env.HEALTH_PORT ??= '0';
require('../../src/main.ts');
