/**
 * The child of `s3-peers.spec.ts`: loads `@ultimat3/jobs` with the AWS SDK made unresolvable (as in an app that never
 * installed the optional peers), declares an export over the S3 sink, and prints what a write answers as JSON.
 */
import { makeUnresolvable } from './unresolvable';

makeUnresolvable((request) => request.startsWith('@aws-sdk/'));

// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded after the hook, as the app would be
const jobs = require('@ultimat3/jobs') as typeof import('@ultimat3/jobs');

const sink = jobs.s3ExportSink({ bucket: 'b', client: { region: 'us-east-1' } });
sink
  .write('k', Buffer.from('x'), { contentType: 'text/csv', signal: new AbortController().signal })
  .then(
    () => console.log(JSON.stringify({ loaded: true, wrote: true })),
    (error: { code?: string; message: string }) =>
      console.log(
        JSON.stringify({
          loaded: typeof jobs.exportRows === 'function',
          code: error.code,
          message: error.message,
        }),
      ),
  );
