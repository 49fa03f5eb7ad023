import 'reflect-metadata';
import { Exclude } from 'class-transformer';
import { IsString } from 'class-validator';
import { memoryJobDriver } from '../driver/memory';
import type { JobDriver } from '../driver/job-driver';
import { frozenClock } from '../testing/frozen-clock';
import { rejection } from '../../test/outcomes';
import { setJobsFacade } from './ambient';
import { directJobsFacade } from './direct-facade';
import { job } from './job';

/** A DTO whose stored JSON drops a required field: the run would see an input that no longer parses. */
class TokenDto {
  @IsString()
  user!: string;

  @IsString()
  @Exclude({ toPlainOnly: true })
  secret!: string;
}

let n = 0;
const unique = (): string => `dto-stored-${++n}`;

describe('a DTO input is judged in the form it is stored in', () => {
  let driver: JobDriver;
  let uninstall: () => void = () => undefined;
  beforeEach(() => {
    const clock = frozenClock();
    driver = memoryJobDriver({ clock });
    uninstall = setJobsFacade(directJobsFacade({ driver, clock }));
  });
  afterEach(() => uninstall());

  it('refuses at enqueue an input whose stored JSON would not parse back, instead of failing every attempt', async () => {
    const h = job({
      name: unique(),
      input: TokenDto,
      idempotencyKey: (t) => `token:${t.user}`,
      tenant: 'none',
    });
    for (const call of [
      () => h.enqueue({ user: 'ada', secret: 's3' }),
      () => h.enqueueMany([{ user: 'ada', secret: 's3' }]),
    ]) {
      const error = await rejection(call());
      expect(error['code']).toBe('X_JOB_INPUT_INVALID');
      expect(JSON.stringify(error['issues'])).toContain('once stored as JSON');
    }
    expect(await driver.stats()).toEqual([]);
  });
});
