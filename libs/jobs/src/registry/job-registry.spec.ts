import { job } from '../declare/job';
import type { AnyJobHandle } from '../declare/handle';
import { errorCodeOf } from '../errors/jobs-error';
import { t } from '../schema';
import { JobRegistry } from './job-registry';

const input = t.object({ id: t.string });
const decl = (name: string, withRun: boolean): AnyJobHandle =>
  job({
    name,
    input,
    idempotencyKey: ({ id }) => id,
    tenant: 'none',
    ...(withRun ? { run: async () => 'inline' } : {}),
  }) as unknown as AnyJobHandle;

function codeOf(fn: () => void): string | undefined {
  try {
    fn();
  } catch (error) {
    return errorCodeOf(error);
  }
  return undefined;
}

describe('JobRegistry', () => {
  it('treats the same handle registered twice as one registration', () => {
    const registry = new JobRegistry();
    const h = decl('reg-same', true);
    registry.register(h);
    registry.register(h);
    expect(registry.all()).toHaveLength(1);
  });

  it('refuses a different handle under a registered name', () => {
    const registry = new JobRegistry();
    const a = decl('reg-collide-a', true);
    // A look-alike with the same durable name: as two modules exporting different jobs under one export name.
    const impostor = { ...a, name: 'reg-collide-a' } as AnyJobHandle;
    registry.register(a);
    expect(codeOf(() => registry.register(impostor))).toBe('X_JOB_DUPLICATE');
  });

  it('binds a @Job body to a declaration without run, once', () => {
    const registry = new JobRegistry();
    const h = decl('reg-bind', false);
    expect(registry.get('reg-bind')).toBeUndefined();
    registry.bind(h, async () => 'bound', 'Jobs.run');
    expect(registry.get('reg-bind')?.body).toBeDefined();
    registry.bind(h, async () => 'bound', 'Jobs.run'); // the same binder seen twice
    expect(codeOf(() => registry.bind(h, async () => 'other', 'Other.run'))).toBe(
      'X_JOB_DUPLICATE',
    );
  });

  it('refuses a binding for a declaration that has its own run', () => {
    const registry = new JobRegistry();
    expect(codeOf(() => registry.bind(decl('reg-inline', true), async () => 1, 'Jobs.run'))).toBe(
      'X_JOB_DUPLICATE',
    );
  });

  it('refuses to serve an unbound declaration (X_JOB_UNBOUND), only for the queues asked', () => {
    const registry = new JobRegistry();
    registry.register(decl('reg-unbound', false));
    expect(codeOf(() => registry.assertBound(['other-queue']))).toBeUndefined();
    expect(codeOf(() => registry.assertBound(['default']))).toBe('X_JOB_UNBOUND');
  });

  it('lists the manifest by name', () => {
    const registry = new JobRegistry();
    registry.register(decl('reg-m-b', true));
    registry.register(decl('reg-m-a', true));
    expect(registry.manifest().map((d) => d.name)).toEqual(['reg-m-a', 'reg-m-b']);
  });
});
