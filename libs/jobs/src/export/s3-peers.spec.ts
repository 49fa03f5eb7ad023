import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..', '..');

describe('the S3 sink without the AWS SDK installed', () => {
  it('@ultimat3/jobs still loads, and the first S3 write is X_PEER_MISSING naming both packages', () => {
    const out = execFileSync(
      process.execPath,
      [
        '-r',
        join(ROOT, 'libs/jobs-pg/test/swc-register.js'),
        join(ROOT, 'libs/jobs/test/no-aws-sdk.ts'),
      ],
      { encoding: 'utf8', timeout: 60_000 },
    );
    const answer = JSON.parse(out.trim().split('\n').pop() ?? '{}') as Record<string, unknown>;
    expect(answer).toMatchObject({ loaded: true, code: 'X_PEER_MISSING' });
    expect(answer.message).toContain('npm install @aws-sdk/client-s3 @aws-sdk/lib-storage');
  });
});
