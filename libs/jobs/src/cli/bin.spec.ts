import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const PACKAGE = join(__dirname, '..', '..');

describe('the x bin of @ultimat3/jobs', () => {
  it('names the build of src/cli/x.ts, which starts with its node shebang', () => {
    const manifest = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')) as {
      bin?: Record<string, string>;
      files?: string[];
    };
    expect(manifest.bin).toEqual({ x: 'dist/cli/x.js' });
    // tsc maps src/ to dist/ (tsconfig.build.json rootDir / outDir) and keeps a leading shebang
    const build = JSON.parse(readFileSync(join(PACKAGE, 'tsconfig.build.json'), 'utf8')) as {
      compilerOptions: { rootDir: string; outDir: string };
    };
    expect(build.compilerOptions).toMatchObject({ rootDir: 'src', outDir: 'dist' });
    expect(manifest.files).toContain('dist');
    expect(readFileSync(join(PACKAGE, 'src', 'cli', 'x.ts'), 'utf8').split('\n', 1)[0]).toBe(
      '#!/usr/bin/env node',
    );
  });
});
