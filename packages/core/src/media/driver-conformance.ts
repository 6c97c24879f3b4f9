import { closedPort } from '../testing/network';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Ingest, IngestSegment, IngestSpec, StreamDriver } from './driver';

export interface ConformanceSetup {
  driver: StreamDriver;
  /** The driver's socket timeout: how long a stalled or unreachable source may take to be given up. */
  socketTimeoutSeconds: number;
  /** Target segment length for the ingests under test; cuts fall on the source's keyframes. */
  segmentSeconds: number;
  /** A playing source, with credentials when it needs them. */
  sourceUrl(path: string): string;
  /** The same source with a wrong password; the tests that need it are skipped without it. */
  wrongPasswordUrl?(path: string): string;
  /** Takes the source down, dropping every connection. */
  outage(): Promise<void>;
  recover(): Promise<void>;
  close(): Promise<void>;
}

/** One started ingest and what it reported. */
export interface IngestRun {
  sourceUrl: string;
  ingest: Ingest;
  segments: IngestSegment[];
  exits: string[];
}

/**
 * Returns a function that starts an ingest into a fresh directory and records what it reports.
 * Call it inside a describe block: every ingest started is stopped, and its directory removed,
 * after each test.
 */
export function ingestRunner(): (driver: StreamDriver, sourceUrl: string, segmentSeconds: number) => Promise<IngestRun> {
  const runs: IngestRun[] = [];
  const directories: string[] = [];
  afterEach(async () => {
    await Promise.all(runs.splice(0).map((run) => run.ingest.stop()));
    await Promise.all(directories.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });
  return async (driver, sourceUrl, segmentSeconds) => {
    const segmentDir = await mkdtemp(join(tmpdir(), 'vss-ingest-'));
    directories.push(segmentDir);
    const spec: IngestSpec = { uid: `test-${driver.name}`, sourceUrl, segmentDir, segmentSeconds };
    const segments: IngestSegment[] = [];
    const exits: string[] = [];
    const ingest = driver.start(spec, {
      segment: (segment) => segments.push(segment),
      exit: (reason) => exits.push(reason),
    });
    const run = { sourceUrl, ingest, segments, exits };
    runs.push(run);
    return run;
  };
}


/** A loopback TCP relay to `target` that can go silent without closing anything, like a pulled cable. */
async function stallableRelay(target: URL) {
  const sockets = new Set<Socket>();
  let stalled = false;
  const forward = (from: Socket, to: Socket) => {
    sockets.add(from);
    from.on('data', (data) => stalled || to.write(data));
    from.on('error', () => {});
    from.on('close', () => to.destroy());
  };
  const server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    forward(client, upstream);
    forward(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(target);
  url.port = String((server.address() as AddressInfo).port);
  return {
    url: url.toString(),
    stall: () => (stalled = true),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function isGone(pid: number | undefined): boolean {
  if (pid === undefined) return true;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** The credentials a reason must not show: the password and the user name of `url`. */
function credentialsOf(url: string): string[] {
  const { username, password } = new URL(url);
  return [username, password, decodeURIComponent(username), decodeURIComponent(password)].filter(Boolean);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The behaviour every StreamDriver owes the supervisor, run against a real source. `setup` is
 * called once for the suite; the ingests each test starts are stopped after it.
 */
export function describeStreamDriverConformance(name: string, setup: () => Promise<ConformanceSetup>): void {
  describe(`StreamDriver conformance: ${name}`, () => {
    let source: ConformanceSetup;
    const startRun = ingestRunner();
    const start = (sourceUrl: string) => startRun(source.driver, sourceUrl, source.segmentSeconds);
    const relays: { close(): Promise<void> }[] = [];

    beforeAll(async () => {
      source = await setup();
    });
    afterEach(async () => {
      await Promise.all(relays.splice(0).map((relay) => relay.close()));
    });
    afterAll(async () => {
      await source?.close();
    });

    /** Long enough for a connection, the first keyframe and a few segments; only an upper bound. */
    const patience = () => (source.socketTimeoutSeconds + 4 * source.segmentSeconds) * 1000;
    /** `count` socket timeouts, and slack for starting and ending the process. */
    const socketTimeouts = (count: number) => (count * source.socketTimeoutSeconds + 2) * 1000;

    async function segmentsReported(run: IngestRun, count: number): Promise<void> {
      await vi.waitFor(() => expect(run.segments.length).toBeGreaterThanOrEqual(count), {
        timeout: patience(),
        interval: 50,
      });
    }

    /** Waits for the run to report its end, once and without the source's credentials. */
    async function exited(run: IngestRun, within: number): Promise<void> {
      await vi.waitFor(() => expect(run.exits).not.toHaveLength(0), { timeout: within, interval: 50 });
      // stop() after an exit resolves at once and must not report the exit a second time.
      await run.ingest.stop();
      expect(run.exits).toHaveLength(1);
      expect(isGone(run.ingest.pid)).toBe(true);
      const [reason] = run.exits;
      expect(reason).not.toBe('');
      for (const secret of credentialsOf(run.sourceUrl)) expect(reason).not.toContain(secret);
    }

    it('emits complete segments of about the target length while the source plays', async () => {
      const run = await start(source.sourceUrl('conformance-segments'));
      await segmentsReported(run, 3);
      const segments = run.segments.slice(0, 3);
      for (const segment of segments) {
        expect((await stat(segment.path)).size).toBeGreaterThan(0);
        expect(segment.duration).toBeGreaterThanOrEqual(0.5 * source.segmentSeconds);
        expect(segment.duration).toBeLessThanOrEqual(2 * source.segmentSeconds);
      }
      for (let i = 1; i < segments.length; i++) {
        expect(segments[i]!.start).toBeGreaterThan(segments[i - 1]!.start);
      }
      expect(new Set(segments.map((segment) => segment.path)).size).toBe(segments.length);
      expect(run.exits).toEqual([]);
    });

    it('stops: stop() resolves once the process is gone, is idempotent, and nothing follows', async () => {
      const run = await start(source.sourceUrl('conformance-stop'));
      await segmentsReported(run, 1);
      const pid = run.ingest.pid;
      expect(pid).toBeTypeOf('number');
      await Promise.all([run.ingest.stop(), run.ingest.stop()]);
      expect(isGone(pid)).toBe(true);
      // Segments closed during the stop are all reported before it resolves.
      for (const segment of run.segments) expect((await stat(segment.path)).size).toBeGreaterThan(0);
      const reported = run.segments.length;
      await sleep(source.segmentSeconds * 1000 + 500);
      expect(run.segments).toHaveLength(reported);
      expect(run.exits).toEqual([]);
      await run.ingest.stop();
    });

    it('reports an unreachable source once, without its credentials', async () => {
      const url = new URL(source.sourceUrl('conformance-unreachable'));
      url.port = String(await closedPort());
      const run = await start(url.toString());
      await exited(run, socketTimeouts(2));
      expect(run.segments).toEqual([]);
    });

    it('reports a refused password, without the password', async (context) => {
      if (!source.wrongPasswordUrl) return context.skip();
      const run = await start(source.wrongPasswordUrl('conformance-password'));
      await exited(run, patience());
      expect(run.segments).toEqual([]);
    });

    it('reports a source that goes away mid-stream', async () => {
      const run = await start(source.sourceUrl('conformance-outage'));
      try {
        await segmentsReported(run, 1);
        await source.outage();
        await exited(run, socketTimeouts(2));
      } finally {
        await source.recover();
      }
    });

    it('gives up on a source that accepts the connection but never answers', async () => {
      const relay = await stallableRelay(new URL(source.sourceUrl('conformance-silent')));
      relays.push(relay);
      relay.stall();
      const run = await start(relay.url);
      await exited(run, socketTimeouts(2));
      expect(run.segments).toEqual([]);
    });

    it('gives up on a source that goes silent mid-stream without closing the connection', async () => {
      const relay = await stallableRelay(new URL(source.sourceUrl('conformance-stall')));
      relays.push(relay);
      const run = await start(relay.url);
      await segmentsReported(run, 1);
      relay.stall();
      // One timeout for the read that stalls, and possibly one more for a goodbye the source ignores.
      await exited(run, socketTimeouts(3));
    });

    it('refuses a source that is not a remote stream, before starting anything', async () => {
      const refused = ['file:///etc/passwd', 'concat:/etc/passwd|/etc/hosts', 'data:text/plain,x', 'pipe:0', 'tcp://127.0.0.1:1'];
      for (const sourceUrl of refused) {
        await expect(start(sourceUrl), sourceUrl).rejects.toThrow();
      }
    });
  });
}
