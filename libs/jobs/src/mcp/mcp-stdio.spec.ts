import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { memoryBackend } from '@ultimat3/jobs';
import { mcpOperatorOver } from './mcp-operator';
import { serveMcpStdio } from './mcp-stdio';

/**
 * `serveMcpStdio` in process, over streams of the spec's own: it answers the protocol on its stdout and resolves once
 * the client closes its stdin — so `x mcp` goes on to close the backend it opened (a Redis connection left open would
 * keep the process alive after the client is gone).
 */
describe('serveMcpStdio over streams of its own', () => {
  const backend = memoryBackend();
  afterAll(() => backend.close());

  it('answers an initialize on stdout, notes its mode elsewhere, and resolves once stdin ends', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const notes: string[] = [];
    const served = serveMcpStdio(mcpOperatorOver({ driver: backend.driver }), {
      stdin,
      stdout,
      note: (text) => notes.push(text),
    });
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'mcp-stdio-spec', version: '1' },
      },
    };
    stdin.write(`${JSON.stringify(initialize)}\n`);
    const [chunk] = (await once(stdout, 'data')) as [Buffer];
    expect(JSON.parse(chunk.toString().split('\n')[0]!)).toMatchObject({
      id: 1,
      result: { serverInfo: { name: 'ultimat3-jobs' } },
    });
    expect(notes).toEqual([expect.stringContaining('(read-only)')]);

    stdin.end();
    let timer: NodeJS.Timeout | undefined;
    const stillServing = new Promise<string>((resolve) => {
      timer = setTimeout(() => resolve('still serving'), 5_000);
    });
    const outcome = await Promise.race([served.then(() => 'ended'), stillServing]);
    clearTimeout(timer);
    expect(outcome).toBe('ended');
  });
});
