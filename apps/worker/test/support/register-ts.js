// A `node -r` hook that lets a child process run this repo's TypeScript sources the way jest runs them: each `.ts`
// file is compiled by @swc/core (decorators with metadata, CommonJS) as jest's transform does, and `@ultimat3/*`
// resolve to `libs/*/src` as jest's moduleNameMapper maps them — so a spawned process runs the code under test, never
// a stale `dist/`. Used by the e2e tests that need real processes (a real signal, a SIGKILL, several workers).
'use strict';

const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const { transformSync } = require('@swc/core');

const ROOT = path.resolve(__dirname, '..', '..', '..', '..');
const ALIASES = {
  '@ultimat3/jobs': 'libs/jobs/src/index.ts',
  '@ultimat3/jobs/testing': 'libs/jobs/src/testing/index.ts',
  '@ultimat3/jobs-pg': 'libs/jobs-pg/src/index.ts',
  '@ultimat3/example-jobs': 'libs/example-jobs/src/index.ts',
};

const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function resolveAlias(request, ...rest) {
  const alias = ALIASES[request];
  return resolveFilename.call(this, alias ? path.join(ROOT, alias) : request, ...rest);
};

Module._extensions['.ts'] = function compileTs(module, filename) {
  const { code } = transformSync(fs.readFileSync(filename, 'utf8'), {
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
