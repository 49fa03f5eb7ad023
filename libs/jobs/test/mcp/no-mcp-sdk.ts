/**
 * The child of `mcp-peers.spec.ts`: loads `@ultimat3/jobs` with the MCP SDK and zod made unresolvable (as in an app
 * that never installed the optional peers), then asks for an MCP server in code and through `x mcp`, and prints what
 * each answered as JSON.
 */
import { makeUnresolvable } from '../unresolvable';

makeUnresolvable(
  (request) =>
    request.startsWith('@modelcontextprotocol/') || request === 'zod' || request.startsWith('zod/'),
);

// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded after the hook, as the app would be
const jobs = require('@ultimat3/jobs') as typeof import('@ultimat3/jobs');
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded after the hook, as the x bin would be
const { runX } = require('../../src/cli/program') as typeof import('../../src/cli/program');

function codeOf(run: () => unknown): { code?: string; message?: string } {
  try {
    run();
    return {};
  } catch (error) {
    const { code, message } = error as { code?: string; message: string };
    return { code, message };
  }
}

const built = codeOf(() =>
  jobs.buildJobsMcpServer(jobs.mcpOperatorOver({ driver: jobs.memoryBackend().driver })),
);
const stderr: string[] = [];
void runX(['mcp', '--url', 'postgres://127.0.0.1:1/none'], {
  env: {},
  cwd: process.cwd(),
  streams: { out: () => undefined, err: (text) => void stderr.push(text) },
}).then((exit) =>
  console.log(
    JSON.stringify({
      loaded: typeof jobs.buildJobsMcpServer === 'function',
      built,
      x: { exit, stderr: stderr.join('\n') },
    }),
  ),
);
