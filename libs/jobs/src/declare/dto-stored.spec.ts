import 'reflect-metadata';
import { Exclude } from 'class-transformer';
import { IsString } from 'class-validator';
import { rejection } from '../../test/outcomes';
import { job } from './job';
import { memoryFacadeEach } from '../../test/memory-facade';

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
  const facade = memoryFacadeEach();

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
    expect(await facade.driver.stats()).toEqual([]);
  });
});
