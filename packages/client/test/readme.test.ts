import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type VssClient } from '../src';
import { isoDate, startTestServer, type TestServer } from './support';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');

interface Example {
  /** The README line the code starts on. */
  line: number;
  code: string;
  /** False for `<!-- example: type-checked only -->`: code that needs what the test server lacks (a device, a recording). */
  runs: boolean;
}

/** The ```ts blocks that directly follow an example marker, in README order. */
function markedExamples(markdown: string): Example[] {
  return [...markdown.matchAll(/^<!-- example(: type-checked only)? -->\n```ts\n([\s\S]*?)^```$/gm)].map((match) => ({
    line: markdown.slice(0, match.index).split('\n').length + 2,
    code: match[2]!,
    runs: match[1] === undefined,
  }));
}

/**
 * The examples as one module, changed no more than a module needs: their imports on top, every
 * other line, in order, inside a function whose parameters are what the README leaves to the
 * reader (`baseUrl`, `token`) and a `console` the test can read. `origins[n]` is the README line
 * of the module's line n + 1.
 */
function asModule(examples: Example[]) {
  const imports: string[] = [];
  const body: { text: string; origin: number }[] = [];
  for (const { line, code } of examples) {
    code.split('\n').forEach((text, offset) => {
      if (/^import\s/.test(text)) imports.push(text);
      else body.push({ text, origin: line + offset });
    });
  }
  const head = [
    ...new Set(imports),
    'export default async function run({ baseUrl, token, console }: { baseUrl: string; token: string; console: Pick<Console, "warn"> }) {',
  ];
  return {
    source: [...head, ...body.map((line) => line.text), '}', ''].join('\n'),
    origins: [...head.map(() => 0), ...body.map((line) => line.origin)],
  };
}

describe('the README examples', () => {
  const examples = markedExamples(readme);
  const checked = asModule(examples);
  const runnable = asModule(examples.filter((example) => example.runs));
  let server: TestServer;
  let scratch: string;
  let admin: VssClient;
  const file = (name: string) => join(scratch, name);

  beforeAll(async () => {
    // Camera creation v1 is one of the examples: released today, it stays open for six months.
    server = await startTestServer('pglite', { env: { VSS_V2_RELEASE_DATE: isoDate(new Date()) } });
    admin = createClient({ baseUrl: server.url, token: server.token });
    // Outside node_modules, so that vitest compiles the TypeScript and resolves '@vss/client' to the sources.
    scratch = mkdtempSync(join(tmpdir(), 'vss-readme-'));
    writeFileSync(file('checked.ts'), checked.source);
    writeFileSync(file('runnable.ts'), runnable.source);
  });
  afterAll(async () => {
    await server?.stop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('are marked around the main tasks of the SDK', () => {
    const run = examples.filter((example) => example.runs);
    expect(run.length).toBeGreaterThanOrEqual(6);
    const code = run.map((example) => example.code).join('\n');
    for (const call of [
      'createClient({',
      '.auth.issueApiToken(',
      'vss.treeElements.create(',
      'vss.cameras.create(',
      'vss.streams.restart(',
      'vss.streams.getMediaUrls(',
      'vss.media.urls(',
      "case 'validation_failed':",
    ]) {
      expect(code).toContain(call);
    }
  });

  it('type-check against the SDK with the compiler options of the package', () => {
    const { config } = ts.readConfigFile(join(packageDir, 'tsconfig.json'), ts.sys.readFile);
    const { options } = ts.parseJsonConfigFileContent(config, ts.sys, packageDir);
    const program = ts.createProgram([file('checked.ts')], {
      ...options,
      paths: { ...options.paths, '@vss/client': [join(packageDir, 'src/index.ts')] },
    });
    const problems = ts.getPreEmitDiagnostics(program).map((diagnostic) => {
      const where = diagnostic.file && diagnostic.start !== undefined ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start) : undefined;
      const origin = where && diagnostic.file?.fileName === file('checked.ts') ? `README.md line ${checked.origins[where.line]}: ` : '';
      return `${origin}${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
    });
    expect(problems).toEqual([]);
  });

  it('run as one program against the server and do what they say', async () => {
    const { default: run } = (await import(pathToFileURL(file('runnable.ts')).href)) as {
      default: (context: { baseUrl: string; token: string; console: Pick<Console, 'warn'> }) => Promise<void>;
    };
    const warnings: unknown[][] = [];
    try {
      await run({ baseUrl: server.url, token: server.token, console: { warn: (...args: unknown[]) => void warnings.push(args) } });
    } catch (error) {
      // Point at the README rather than at the generated module.
      const at = /runnable\.ts:(\d+)/.exec((error as Error).stack ?? '');
      const origin = at ? runnable.origins[Number(at[1]) - 1] : undefined;
      throw new Error(`README example failed${origin ? ` at README.md line ${origin}` : ''}: ${(error as Error).message}`, {
        cause: error,
      });
    }

    // The error example took the validation branch, for the one bad field.
    expect(warnings).toEqual([['mac', expect.stringMatching(/\S/)]]);

    const cameras = (await admin.cameras.list({ per_page: 100 })).data;
    expect(cameras.map((camera) => camera.name).sort()).toEqual(['Door', 'Gate', 'Old']);
    const gate = await admin.cameras.get(cameras.find((camera) => camera.name === 'Gate')!.id);
    expect(gate.folder_id).not.toBeNull();
    // onDeviceAddress made the streams, and the restarts reached them.
    for (const uid of [`${gate.uuid}-high`, 'door-high']) {
      expect((await admin.streams.get(uid)).reconnection.reset_at, uid).not.toBeNull();
    }
    expect((await admin.streams.get(`${gate.uuid}-low`)).url).toContain('192.0.2.10');
  });
});
