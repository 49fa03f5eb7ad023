import 'reflect-metadata';
import { Type } from 'class-transformer';
import {
  IsArray,
  IsDate,
  IsEmail,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  Min,
  ValidateNested,
} from 'class-validator';
import { job } from '../../declare/job';
import { runJobs } from '../../testing/run-jobs';
import { dtoSchema } from './dto-schema';
import { rejection } from '../../../test/outcomes';
import { memoryFacadeEach } from '../../../test/memory-facade';

class AddressDto {
  @IsString()
  @IsNotEmpty()
  city!: string;

  @Matches(/^\d{5}$/)
  zip!: string;
}

class LineDto {
  @IsUUID()
  sku!: string;

  @IsInt()
  @Min(1)
  qty!: number;
}

class OrderDto {
  @IsEmail()
  email!: string;

  @ValidateNested()
  @Type(() => AddressDto)
  address!: AddressDto;

  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => LineDto)
  lines!: LineDto[];

  @IsOptional()
  @IsDate()
  @Type(() => Date)
  deliverBy?: Date;

  /** A method: the body can call it, because it receives an instance. */
  units(): number {
    return this.lines.reduce((sum, line) => sum + line.qty, 0);
  }
}

const SKU = '0190a0a0-0000-7000-8000-0000000000c1';
const order = (email = 'ada@example.com') => ({
  email,
  address: { city: 'Lyon', zip: '69001' },
  lines: [
    { sku: SKU, qty: 2 },
    { sku: SKU, qty: 3 },
  ],
  deliverBy: new Date('2026-03-01T09:00:00.000Z'),
});
let n = 0;
const unique = (): string => `dto-${++n}`;

describe('dtoSchema: a class-validator DTO as a Standard Schema', () => {
  const schema = dtoSchema(OrderDto);

  it('answers an instance of the class, nested DTOs and @Type dates included', async () => {
    const result = await schema['~standard'].validate(order());
    if (result.issues) throw new Error('expected a value');
    expect(result.value).toBeInstanceOf(OrderDto);
    expect(result.value.address).toBeInstanceOf(AddressDto);
    expect(result.value.lines[1]).toBeInstanceOf(LineDto);
    expect(result.value.deliverBy).toBeInstanceOf(Date);
    expect(result.value.units()).toBe(5);
    expect(schema['~standard'].vendor).toBe('class-validator');
  });

  it('reports one issue per failed constraint, with nested property paths and array indexes', async () => {
    const bad = {
      ...order('not-an-email'),
      address: { city: '', zip: '69001' },
      lines: [
        { sku: SKU, qty: 1 },
        { sku: 'nope', qty: 0 },
      ],
    };
    const result = await schema['~standard'].validate(bad);
    const paths = (result.issues ?? []).map((i) =>
      (i.path ?? []).map((p) => (typeof p === 'object' ? p.key : p)),
    );
    expect(paths).toEqual([
      ['email'],
      ['address', 'city'],
      ['lines', 1, 'sku'],
      ['lines', 1, 'qty'],
    ]);
  });

  it('refuses what is not an object at the root', async () => {
    for (const raw of [null, 'order', 42, [order()]]) {
      const result = await schema['~standard'].validate(raw);
      expect(result.issues).toEqual([
        { message: expect.stringMatching(/^expected an object/), path: [] },
      ]);
    }
  });

  it('stores the instance as plain JSON: no class, dates as ISO strings', () => {
    const instance = Object.assign(new OrderDto(), order());
    expect(schema.toPlain(instance)).toEqual({
      ...order(),
      deliverBy: '2026-03-01T09:00:00.000Z',
    });
  });

  it('passes validator options through ({ whitelist: true } strips undecorated keys)', async () => {
    const strict = dtoSchema(OrderDto, { validator: { whitelist: true } });
    const result = await strict['~standard'].validate({ ...order(), extra: 'dropped' });
    if (result.issues) throw new Error('expected a value');
    expect(strict.toPlain(result.value)).not.toHaveProperty('extra');
  });
});

describe('job({ input: DtoClass })', () => {
  const facade = memoryFacadeEach();

  const declare = () =>
    job({
      name: unique(),
      input: OrderDto,
      idempotencyKey: (o) => `order:${o.email}:${o.units()}`,
      tenant: 'none',
    });

  it('stores plain JSON and derives the key from an instance', async () => {
    const h = declare();
    const { id } = await h.enqueue(order());
    const row = await facade.driver.get(id);
    expect(row?.input).toEqual({ ...order(), deliverBy: '2026-03-01T09:00:00.000Z' });
    expect(row?.idempotencyKey).toBe('order:ada@example.com:5');
    expect(h.describe().inputVendor).toBe('class-validator');
  });

  it('refuses a bad input with X_JOB_INPUT_INVALID and the property paths, queuing nothing', async () => {
    const h = declare();
    const error = await rejection(
      h.enqueue({ ...order(), address: { city: 'Lyon', zip: 'x' }, lines: [{ sku: SKU, qty: 0 }] }),
    );
    expect(error).toMatchObject({
      code: 'X_JOB_INPUT_INVALID',
      issues: [
        { path: 'address.zip', message: expect.any(String) },
        { path: 'lines[0].qty', message: expect.any(String) },
      ],
    });
    expect(await facade.driver.stats()).toEqual([]);
  });

  it('reports the bad items of an enqueueMany by index', async () => {
    const h = declare();
    const error = await rejection(
      h.enqueueMany([order('a@x.io'), { ...order('b@x.io'), email: 'b' }, order('c@x.io')]),
    );
    expect(error).toMatchObject({
      code: 'X_JOB_INPUT_INVALID',
      issues: [{ index: 1, path: 'email', message: expect.any(String) }],
    });
    expect(await facade.driver.stats()).toEqual([]);
  });
});

describe('a DTO job body', () => {
  it('receives an instance rebuilt from the stored JSON on every attempt', async () => {
    const seen: { instance: boolean; date: boolean; units: number; city: string }[] = [];
    const h = job({
      name: unique(),
      input: OrderDto,
      idempotencyKey: (o) => `order:${o.email}`,
      tenant: 'none',
      retry: { attempts: 2, delay: 1, jitter: false },
      async run({ input, attempt }) {
        seen.push({
          instance: input instanceof OrderDto && input.address instanceof AddressDto,
          date: input.deliverBy instanceof Date,
          units: input.units(),
          city: input.address.city,
        });
        // what the first attempt does to its copy never reaches the second
        input.address.city = 'changed';
        if (attempt === 1) throw new Error('first attempt fails');
      },
    });
    const harness = await runJobs({ jobs: [h] });
    try {
      const { id } = await h.enqueue(order());
      await harness.settle();
      await harness.advance(1_000);
      expect((await harness.driver.get(id))?.state).toBe('done');
      const first = { instance: true, date: true, units: 5, city: 'Lyon' };
      expect(seen).toEqual([first, first]);
    } finally {
      await harness.close();
    }
  });
});
