import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..', '..');

describe('MCP without the MCP SDK installed', () => {
  it('@ultimat3/jobs still loads; building a server and x mcp are X_PEER_MISSING naming both packages', () => {
    const out = execFileSync(
      process.execPath,
      [
        '-r',
        join(ROOT, 'libs/jobs-pg/test/swc-register.js'),
        join(ROOT, 'libs/jobs/test/mcp/no-mcp-sdk.ts'),
      ],
      { encoding: 'utf8', timeout: 60_000 },
    );
    const answer = JSON.parse(out.trim().split('\n').pop() ?? '{}') as {
      loaded: boolean;
      built: { code?: string; message?: string };
      x: { exit: number; stderr: string };
    };
    expect(answer.loaded).toBe(true);
    expect(answer.built.code).toBe('X_PEER_MISSING');
    expect(answer.built.message).toContain('npm install @modelcontextprotocol/sdk zod');
    expect(answer.x.exit).toBe(1);
    expect(answer.x.stderr).toContain('X_PEER_MISSING');
    expect(answer.x.stderr).toContain('npm install @modelcontextprotocol/sdk zod');
  });
});
