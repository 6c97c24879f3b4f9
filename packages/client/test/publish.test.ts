import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const bin = (name: string) => fileURLToPath(new URL(`../node_modules/.bin/${name}`, import.meta.url));
const packageDir = (name: string) => fileURLToPath(new URL(`../../${name}`, import.meta.url));

/** What npm consumers meet: the built packages as publint and "are the types wrong" judge them. */
describe.each(['client', 'schema'])('the published @vss/%s', (name) => {
  it('passes publint with nothing to suggest', async () => {
    const { stdout } = await run(bin('publint'), ['--strict'], { cwd: packageDir(name) });
    expect(stdout).toContain('All good!');
  }, 120_000);

  it('resolves its types in every module mode (attw)', async () => {
    const { stdout } = await run(bin('attw'), ['--pack', '.', '--format', 'json'], { cwd: packageDir(name) });
    expect(JSON.parse(stdout).problems ?? {}).toEqual({});
  }, 120_000);
});
