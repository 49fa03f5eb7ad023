import { installConnectJail, takeRefusals } from './connect-jail';

// every test file: no traffic off this machine (see connect-jail.ts); a refused connect fails the test it happened in
installConnectJail();

afterEach(() => {
  const refused = takeRefusals();
  if (refused.length > 0)
    throw new Error(`this test tried to connect off this machine: ${refused.join(', ')}`);
});
