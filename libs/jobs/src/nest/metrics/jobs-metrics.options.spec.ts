import 'reflect-metadata';
import { Registry } from 'prom-client';
import { JobsModule } from '../jobs.module';
import type { JobsMetricsOptions } from './jobs-metrics.options';

const declare = (metrics: unknown) => () =>
  JobsModule.forRoot({ driver: 'memory', metrics: metrics as JobsMetricsOptions });
const declareAsync = (metrics: unknown) => () =>
  JobsModule.forRootAsync({
    useFactory: () => ({ driver: 'memory' }),
    metrics: metrics as JobsMetricsOptions,
  });

describe('forRoot({ metrics }) options', () => {
  it.each([
    ['buckets in decreasing order', { durationBuckets: [10, 1, 0.1] }, 'durationBuckets'],
    ['a repeated bucket', { durationBuckets: [1, 1] }, 'durationBuckets'],
    ['a bucket that is not a number', { durationBuckets: [0.1, '1'] }, 'durationBuckets'],
    ['a NaN bucket', { durationBuckets: [Number.NaN] }, 'durationBuckets'],
    [
      'an Infinity bucket (+Inf is always there)',
      { durationBuckets: [1, Infinity] },
      'durationBuckets',
    ],
    ['an empty path', { path: '' }, 'metrics.path'],
    ['a path that is not a string', { path: 9464 }, 'metrics.path'],
    ['a registry that is not one', { registry: {} }, 'metrics.registry'],
    ['null', null, 'metrics must be an object'],
  ])('refuse %s with X_INVARIANT when the module is declared', (_, metrics, field) => {
    for (const declaration of [declare(metrics), declareAsync(metrics)]) {
      let thrown: unknown;
      try {
        declaration();
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toMatchObject({
        code: 'X_INVARIANT',
        message: expect.stringContaining(field),
      });
    }
  });

  it('take increasing buckets, a route or false, and a registry', () => {
    expect(
      declare({ durationBuckets: [0.1, 1, 10], path: '/m', registry: new Registry() }),
    ).not.toThrow();
    expect(declare({ path: false })).not.toThrow();
    expect(declare({})).not.toThrow();
    expect(declare({ durationBuckets: [] })).not.toThrow();
  });
});
