import { clsTransactionReader } from './cls-transaction';

describe('clsTransactionReader', () => {
  it('answers undefined when @nestjs-cls/transactional is not installed', () => {
    const read = clsTransactionReader(() => {
      throw Object.assign(new Error('Cannot find module'), { code: 'MODULE_NOT_FOUND' });
    });
    expect(read()).toBeUndefined();
  });

  it('answers undefined when the plugin is not registered, and when no transaction is active', () => {
    const notRegistered = clsTransactionReader(() => ({
      TransactionHost: {
        getInstance: () => {
          throw new Error('TransactionHost not initialized');
        },
      },
    }));
    expect(notRegistered()).toBeUndefined();
    const idle = clsTransactionReader(() => ({
      TransactionHost: { getInstance: () => ({ isTransactionActive: () => false, tx: 'pool' }) },
    }));
    expect(idle()).toBeUndefined();
  });

  it('answers the active transaction, calling getInstance on its class', () => {
    const manager = { name: 'the transaction manager' };
    class TransactionHost {
      static readonly instance = { isTransactionActive: () => true, tx: manager };
      static getInstance(this: typeof TransactionHost) {
        return this.instance;
      }
    }
    const read = clsTransactionReader(() => ({ TransactionHost }));
    expect(read()).toBe(manager);
  });
});
