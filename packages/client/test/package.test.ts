import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importedModules } from './support';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
  exports: Record<string, Record<'import' | 'require', { types: string; default: string }>>;
  main: string;
  module: string;
  types: string;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

describe('the published package', () => {
  // Built into a scratch directory so that the test never races a developer's own dist/; inside
  // the package's node_modules so that the bundles' imports of ky and zod resolve as installed.
  let outDir: string;
  const built = (path: string) => join(outDir, relative('dist', path));

  beforeAll(() => {
    const scratch = join(packageDir, 'node_modules', '.tmp');
    mkdirSync(scratch, { recursive: true });
    outDir = mkdtempSync(join(scratch, 'dist-'));
    const tsup = join(dirname(createRequire(import.meta.url).resolve('tsup/package.json')), 'dist/cli-default.js');
    execFileSync(process.execPath, [tsup, '--out-dir', outDir, '--silent'], { cwd: packageDir, stdio: 'pipe' });
  }, 120_000);
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  it('has a file for every path its manifest names', () => {
    const paths = [
      manifest.main,
      manifest.module,
      manifest.types,
      ...Object.values(manifest.exports).flatMap((conditions) =>
        Object.values(conditions).flatMap((target) => [target.types, target.default]),
      ),
    ];
    expect(paths).toEqual(expect.arrayContaining(['./dist/index.js', './dist/index.cjs', './dist/index.d.ts', './dist/index.d.cts']));
    for (const path of paths) expect(existsSync(built(path)), path).toBe(true);
  });

  it('depends at run time on ky and zod only, with the schema bundled in', () => {
    expect(Object.keys(manifest.dependencies).sort()).toEqual(['ky', 'zod']);
    expect(manifest.devDependencies['@vss/schema']).toBeDefined();
    for (const file of ['index.js', 'index.cjs', 'index.d.ts', 'index.d.cts']) {
      const modules = importedModules(readFileSync(join(outDir, file), 'utf8'));
      for (const name of modules) expect(['ky', 'zod'], `${file} imports ${name}`).toContain(name);
    }
  });

  it('uses nothing of Node, so it runs in Deno, Bun and browsers too', () => {
    for (const file of sourceFiles(join(packageDir, 'src'))) {
      const code = readFileSync(file, 'utf8');
      expect(code, file).not.toMatch(/from ['"]node:|require\(|\bprocess\.|\bBuffer\b/);
    }
    const bundle = readFileSync(join(outDir, 'index.js'), 'utf8');
    expect(bundle).not.toMatch(/["']node:/);
  });

  it('loads as ESM and as CommonJS with the same API', async () => {
    const esm = (await import(pathToFileURL(built(manifest.exports['.']!.import.default)).href)) as Record<string, unknown>;
    const cjs = createRequire(import.meta.url)(built(manifest.exports['.']!.require.default)) as Record<string, unknown>;
    expect(Object.keys(cjs).sort()).toEqual(Object.keys(esm).sort());
    expect(Object.keys(esm)).toEqual(expect.arrayContaining(['createClient', 'VssClientError', 'ConnectionError', 'isVssClientError']));

    const client = (cjs.createClient as (options: { baseUrl: string }) => { cameras: object; rpc: object })({
      baseUrl: 'http://127.0.0.1:1',
    });
    expect(Object.keys(client.cameras)).toEqual(['create', 'createV1', 'list', 'get']);
  });

  it('declares only values it ships: schema names are exported as types', async () => {
    const declarations = readFileSync(built(manifest.types), 'utf8');
    const exported = /export \{([^}]*)\};\s*$/.exec(declarations)?.[1]?.split(',').map((name) => name.trim()) ?? [];
    expect(exported).toContain('type Camera');
    expect(exported).toContain('createClient');
    const values = exported.filter((name) => !name.startsWith('type '));
    const module = (await import(pathToFileURL(built(manifest.module)).href)) as Record<string, unknown>;
    for (const name of values) expect(module[name], name).toBeDefined();
  });
});
