#!/usr/bin/env node
import { processStreams } from './output';
import { runX } from './program';

/** `x`: the operator command line of @ultimat3/jobs (the package's `bin`). See `x --help`. */
void runX(process.argv.slice(2), {
  env: process.env,
  cwd: process.cwd(),
  streams: processStreams,
}).then((code) => {
  process.exitCode = code;
});
