// A require hook for the latency child process: compiles this repo's TypeScript with @swc/core (as jest does) and
// resolves the workspace aliases, so a plain `node -r ./register-ts.js child.ts` runs the sources without a build.
'use strict';

const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const { transformSync } = require('@swc/core');

const ROOT = path.resolve(__dirname, '../../../../..');
const ALIASES = {
  '@ultimat3/jobs': 'libs/jobs/src/index.ts',
  '@ultimat3/jobs/testing': 'libs/jobs/src/testing/index.ts',
  '@ultimat3/jobs-pg': 'libs/jobs-pg/src/index.ts',
};

const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function resolveTs(request, parent, ...rest) {
  if (ALIASES[request]) return path.join(ROOT, ALIASES[request]);
  if (request.startsWith('.') && parent && parent.filename) {
    for (const suffix of ['.ts', '/index.ts']) {
      const candidate = path.resolve(path.dirname(parent.filename), request + suffix);
      if (fs.existsSync(candidate)) return candidate;
    }
  }
  return resolveFilename.call(this, request, parent, ...rest);
};

require.extensions['.ts'] = (module, filename) => {
  const { code } = transformSync(fs.readFileSync(filename, 'utf8'), {
    filename,
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
  });
  module._compile(code, filename);
};
