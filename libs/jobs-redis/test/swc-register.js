/**
 * `node -r ./libs/jobs-redis/test/swc-register.js child.ts`: runs a spec's child process straight from the TypeScript
 * sources (compiled on load by the installed @swc/core with jest's options), with the workspace packages mapped to
 * their sources as jest's moduleNameMapper does — so a child runs the code under test, never a stale `dist/`.
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
