/**
 * `node -r ./libs/jobs-pg/test/swc-register.js child.ts`: runs a test's child process (of any workspace package's spec) straight from the TypeScript
 * sources, compiled on load by the installed @swc/core with the options jest uses, and with the workspace packages
 * mapped to their sources as jest's moduleNameMapper does. A child spawned by a spec therefore runs the code under
 * test — never a `dist/` that a fresh clone has not built, or that is older than the sources.
 */
'use strict';

const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const swc = require('@swc/core');

const ROOT = path.join(__dirname, '..', '..', '..');
const MAPPED = {
  '@ultimat3/jobs': path.join(ROOT, 'libs', 'jobs', 'src', 'index.ts'),
  '@ultimat3/jobs/testing': path.join(ROOT, 'libs', 'jobs', 'src', 'testing', 'index.ts'),
  '@ultimat3/jobs-pg': path.join(ROOT, 'libs', 'jobs-pg', 'src', 'index.ts'),
  '@ultimat3/jobs-redis': path.join(ROOT, 'libs', 'jobs-redis', 'src', 'index.ts'),
};

const resolve = Module._resolveFilename;
Module._resolveFilename = function resolveMapped(request, ...rest) {
  return resolve.call(this, MAPPED[request] ?? request, ...rest);
};

Module._extensions['.ts'] = function compileTs(module, filename) {
  const { code } = swc.transformSync(fs.readFileSync(filename, 'utf8'), {
    filename,
    sourceMaps: 'inline',
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
  });
  module._compile(code, filename);
};
