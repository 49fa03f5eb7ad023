import { connect, createServer, type Server, type Socket } from 'node:net';
import { startTcpProxy, type TcpProxy } from './tcp-proxy';

/** An echo server on a free loopback port. */
async function echoServer(): Promise<{ server: Server; port: number }> {
  const server = createServer((socket) => {
    socket.on('error', () => undefined);
    socket.pipe(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { server, port: typeof address === 'object' && address ? address.port : 0 };
}

/** A client of the proxy that collects what comes back and how it ended. */
function client(port: number): { socket: Socket; received: () => string; ended: Promise<string> } {
  const socket = connect({ host: '127.0.0.1', port });
  let text = '';
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  const ended = new Promise<string>((resolve) => {
    socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    socket.on('close', () => resolve('closed'));
  });
  return { socket, received: () => text, ended };
}

const tick = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function eventually(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await tick(10);
  expect(check()).toBe(true);
}

describe('the chaos tier TCP proxy', () => {
  let echo: { server: Server; port: number };
  let proxy: TcpProxy;
  beforeEach(async () => {
    echo = await echoServer();
    proxy = await startTcpProxy({ targetPort: echo.port });
  });
  afterEach(async () => {
    await proxy.close();
    await new Promise((resolve) => echo.server.close(resolve));
  });

  it('passes bytes, holds them while stalled (socket open) and delivers them once healed', async () => {
    const c = client(proxy.port);
    c.socket.write('a');
    await eventually(() => c.received() === 'a');
    proxy.stall();
    c.socket.write('b');
    const late = client(proxy.port); // opened during the stall: accepted, held
    late.socket.write('x');
    await tick(150);
    expect(c.received()).toBe('a');
    expect(late.received()).toBe('');
    expect(c.socket.destroyed).toBe(false);
    await proxy.heal();
    await eventually(() => c.received() === 'ab' && late.received() === 'x');
    c.socket.destroy();
    late.socket.destroy();
  });

  it('cuts every socket, refuses new connections until healed, then passes again', async () => {
    const c = client(proxy.port);
    c.socket.write('a');
    await eventually(() => c.received() === 'a');
    await proxy.cut('refuse');
    expect(await c.ended).toMatch(/ECONNRESET|closed/);
    expect(await client(proxy.port).ended).toBe('ECONNREFUSED');
    await proxy.heal();
    const again = client(proxy.port);
    again.socket.write('z');
    await eventually(() => again.received() === 'z');
    again.socket.destroy();
    expect(proxy.stats.cutSockets).toBe(1);
  });

  it('black-holes connections opened during a cut and forwards them once healed', async () => {
    await proxy.cut('blackhole');
    const held = client(proxy.port);
    held.socket.write('q');
    await tick(150);
    expect(held.received()).toBe('');
    await proxy.heal();
    await eventually(() => held.received() === 'q');
    held.socket.destroy();
  });
});
