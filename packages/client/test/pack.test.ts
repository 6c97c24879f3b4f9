import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importedModules, startTestServer, type TestServer } from './support';

/*
 * What a user of the registry gets: the three published packages packed by pnpm (which rewrites
 * `workspace:*` to real versions), checked file by file. @vss/schema and @vss/client are then
 * installed by npm into an empty project and used from ESM and CommonJS against a real server.
 * @vss/core is checked from its tarball only: installing it would fetch PGlite and the ffmpeg and
 * ffprobe binaries (some 170 MB) on every run.
 */

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../..', import.meta.url));
const PUBLISHED = { '@vss/schema': 'packages/schema', '@vss/core': 'packages/core', '@vss/client': 'packages/client' } as const;
type Published = keyof typeof PUBLISHED;

interface Manifest {
  name: string;
  version: string;
  license?: string;
  main?: string;
  module?: string;
  types?: string;
  exports: Record<string, Record<string, string | Record<string, string>>>;
  dependencies?: Record<string, string>;
}

interface Packed {
  tarball: string;
  files: string[];
  /** The package.json inside the tarball, as published. */
  manifest: Manifest;
  /** The tarball unpacked, to read its built files. */
  dir: string;
}

/** Every file path a manifest points at: main, module, types and each export condition. */
function manifestTargets(manifest: Manifest): string[] {
  const targets = (value: string | Record<string, unknown>): string[] =>
    typeof value === 'string' ? [value] : Object.values(value).flatMap((inner) => targets(inner as string | Record<string, unknown>));
  return [manifest.main, manifest.module, manifest.types, ...Object.values(manifest.exports).flatMap(targets)]
    .filter((path): path is string => path !== undefined)
    .map((path) => path.replace(/^\.\//, ''));
}

function builtFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((path) => /\.(c|m)?js$/.test(path));
}

/** The package a bare specifier names: `@scope/name` or `name`, without a subpath. */
const packageOf = (specifier: string) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');

describe('the packed packages', () => {
  let scratch: string;
  let project: string;
  let server: TestServer;
  const packed = {} as Record<Published, Packed>;

  beforeAll(async () => {
    // The tarballs are made from dist/, which must be current; turbo rebuilds only what changed.
    await run('pnpm', ['exec', 'turbo', 'run', 'build', ...Object.keys(PUBLISHED).map((name) => `--filter=${name}`), '--output-logs=errors-only'], {
      cwd: root,
    });
    scratch = mkdtempSync(join(tmpdir(), 'vss-pack-'));
    for (const [name, path] of Object.entries(PUBLISHED) as [Published, string][]) {
      const { stdout } = await run('pnpm', ['pack', '--pack-destination', scratch, '--json'], { cwd: join(root, path) });
      const report = JSON.parse(stdout) as { filename: string; files: { path: string }[] };
      const dir = join(scratch, name.replace('/', '-'));
      mkdirSync(dir);
      await run('tar', ['-xzf', report.filename, '-C', dir, '--strip-components=1']);
      packed[name] = {
        tarball: report.filename,
        files: report.files.map((file) => file.path),
        manifest: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest,
        dir,
      };
    }

    project = join(scratch, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'vss-pack-check', version: '0.0.0', private: true }));
    // ky and zod come from the registry (or npm's cache).
    await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', packed['@vss/schema'].tarball, packed['@vss/client'].tarball], {
      cwd: project,
    });
    server = await startTestServer('pglite');
  }, 300_000);

  afterAll(async () => {
    await server?.stop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it.each(Object.keys(PUBLISHED) as Published[])('%s ships its build, its manifest, a README and its licence, and nothing else', (name) => {
    const { files, manifest } = packed[name];
    expect(files).toContain('README.md');
    expect(files).toContain('LICENSE');
    expect(files).toContain('package.json');
    for (const file of files) expect(file, `${name}: ${file}`).toMatch(/^(dist\/.+|drizzle\/.+|README\.md|LICENSE|package\.json)$/);
    expect(files.filter((file) => /(^|\/)(src|test)\/|\.test\./.test(file))).toEqual([]);
    for (const target of manifestTargets(manifest)) expect(files, `${name} names ${target}`).toContain(target);
    expect(manifestTargets(manifest).some((target) => /\.d\.c?ts$/.test(target)), `${name} declares types`).toBe(true);
  });

  it.each(Object.keys(PUBLISHED) as Published[])('%s is published with a license and real versions', (name) => {
    const { manifest } = packed[name];
    expect(manifest.license).toBe('MIT');
    expect(JSON.stringify(manifest)).not.toContain('workspace:');
  });

  it('@vss/core depends on the @vss/schema published beside it, and imports nothing it does not declare', () => {
    const { manifest, dir } = packed['@vss/core'];
    expect(manifest.dependencies?.['@vss/schema']).toBe(packed['@vss/schema'].manifest.version);
    const declared = new Set(Object.keys(manifest.dependencies ?? {}));
    const files = builtFiles(join(dir, 'dist'));
    expect(files).toEqual(expect.arrayContaining(['index.js', join('testing', 'index.js')]));
    for (const file of files) {
      for (const specifier of importedModules(readFileSync(join(dir, 'dist', file), 'utf8'))) {
        if (!isBuiltin(specifier)) expect(declared, `dist/${file} imports ${specifier}`).toContain(packageOf(specifier));
      }
    }
  });

  it('@vss/core ships every migration its journal lists', () => {
    const { files, dir } = packed['@vss/core'];
    const journal = JSON.parse(readFileSync(join(dir, 'drizzle/meta/_journal.json'), 'utf8')) as { entries: { tag: string }[] };
    expect(journal.entries.length).toBeGreaterThan(0);
    for (const { tag } of journal.entries) expect(files).toContain(`drizzle/${tag}.sql`);
  });

  // One script, loaded both ways: the result must not depend on how the SDK was loaded.
  const check = `
    const baseUrl = process.env.VSS_URL;
    const health = await createClient({ baseUrl }).system.health();
    const refused = await createClient({ baseUrl, token: 'not-a-token' }).treeElements.list().catch((error) => error);
    console.log(JSON.stringify({
      health,
      code: refused.code,
      status: refused.status,
      unauthorized: refused instanceof UnauthorizedError,
      healthPath: operations.health.path,
      resolved: [resolve('@vss/client'), resolve('@vss/schema')],
    }));`;
  const scripts = {
    'check.mjs': `import { createClient, UnauthorizedError } from '@vss/client';
import { operations } from '@vss/schema';
const resolve = (name) => import.meta.resolve(name);
${check}`,
    'check.cjs': `const { createClient, UnauthorizedError } = require('@vss/client');
const { operations } = require('@vss/schema');
const resolve = (name) => require.resolve(name);
(async () => {${check}
})();`,
  };

  it.each([
    ['check.mjs', '.js'],
    ['check.cjs', '.cjs'],
  ] as const)('installs with npm and works from %s against the server', async (script, extension) => {
    writeFileSync(join(project, script), scripts[script]);
    const { stdout } = await run(process.execPath, [script], { cwd: project, env: { ...process.env, VSS_URL: server.url } });
    const result = JSON.parse(stdout) as { resolved: string[] };
    expect(result).toMatchObject({
      health: { status: 'ok' },
      code: 'unauthenticated',
      status: 401,
      unauthorized: true,
      healthPath: '/healthz',
    });
    for (const path of result.resolved) expect(path).toMatch(new RegExp(`node_modules/@vss/\\w+/dist/index\\${extension}$`));
  });

  it('type-checks for a consumer, from ESM and from CommonJS', () => {
    const consumer = `import { createClient, type Camera } from '@vss/client';
export const describeCamera = (camera: Camera): string => \`\${camera.name} (\${camera.uuid})\`;
export const getCamera = (id: number): Promise<Camera> => createClient({ baseUrl: 'http://127.0.0.1:8080' }).cameras.get(id);
`;
    // The same source as an ES module and as a CommonJS one: each resolves its own declarations.
    const paths = ['consumer.mts', 'consumer.cts'].map((file) => join(project, file));
    for (const path of paths) writeFileSync(path, consumer);
    const program = ts.createProgram(paths, {
      module: ts.ModuleKind.Node16,
      moduleResolution: ts.ModuleResolutionKind.Node16,
      target: ts.ScriptTarget.ES2022,
      strict: true,
      noEmit: true,
      types: [],
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    });
    const problems = ts.getPreEmitDiagnostics(program).map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    expect(problems).toEqual([]);
  });
});
