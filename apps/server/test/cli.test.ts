import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const run = promisify(execFile);

/** The console tool as an operator runs it: the built `vss` binary on an embedded data directory. */
describe('vss command line', () => {
  let dataDir: string;
  const env = () => ({ ...process.env, DATABASE_URL: '', VSS_DATA_DIR: dataDir, VSS_LOG_LEVEL: 'warn' });
  const vss = (...args: string[]) => run(process.execPath, [cli, ...args], { env: env() });

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'vss-cli-'));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('migrates, issues, lists and revokes API tokens on the database', async () => {
    expect((await vss('migrate')).stdout).toContain('Migrations applied.');
    const token = (await vss('token', 'issue', '--client', 'billing', '--duration', '0')).stdout.trim();
    expect(token).toMatch(/^vss_[A-Za-z0-9_-]{43}$/);
    const listed = (await vss('token', 'list')).stdout;
    expect(listed).toContain('billing');
    expect(listed).not.toContain(token);
    expect((await vss('token', 'revoke', '1')).stdout).toContain('Token 1 revoked.');
    await expect(vss('token', 'revoke', '1')).rejects.toMatchObject({ code: 1 });
  });

  it('refuses bad usage with exit code 2', async () => {
    await expect(vss('token', 'issue', '--client', 'x', '--duration', 'soon')).rejects.toMatchObject({ code: 2 });
    await expect(vss('frobnicate')).rejects.toMatchObject({ code: 2 });
  });

  describe('while a server holds the data directory', () => {
    let server: ChildProcess;
    let url: string;

    beforeAll(async () => {
      server = spawn(process.execPath, [cli, 'start'], { env: { ...env(), PORT: '0', VSS_LOG_LEVEL: 'info' } });
      url = await new Promise<string>((resolve, reject) => {
        let output = '';
        server.stdout!.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          const listening = output.split('\n').find((line) => line.includes('"vss listening"'));
          if (listening) resolve(JSON.parse(listening).url);
        });
        server.once('exit', (code) => reject(new Error(`server exited with ${code}: ${output}`)));
      });
    });
    afterAll(async () => {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    });

    it('serves HTTP', async () => {
      const health = await fetch(`${url}/healthz`);
      expect(health.status).toBe(200);
    });

    it('makes a second process fail fast with a clear message instead of sharing PGlite', async () => {
      const failure = await vss('token', 'list').catch((error: { code: number; stderr: string }) => error);
      expect(failure).toMatchObject({ code: 1 });
      expect((failure as { stderr: string }).stderr).toMatch(/in use by another VSS process \(pid \d+\)/);
    });
  });
});
