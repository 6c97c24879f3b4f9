import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { and, eq, isNotNull, ne, sql } from 'drizzle-orm';
import type { StreamStatus } from '@vss/schema';
import type { CoreContext } from '../context';
import { cameras, streams } from '../db/schema';
import { resolveOnvifStreamUris } from '../drivers/onvif/streams';
import { VssError } from '../errors';
import type { Ingest, StreamDriver } from './driver';
import type { SegmentStore } from './segment-store';

export interface SupervisorOptions {
  /** Target segment length in seconds. */
  segmentSeconds: number;
  /** Consecutive failures after which a stream turns inactive. */
  reconnectLimit: number;
  /** First retry delay; doubles per consecutive failure up to maxBackoffMs, with jitter. */
  initialBackoffMs: number;
  maxBackoffMs: number;
  /** An ingest that produces no segment for this long is killed and retried. */
  watchdogMs: number;
}

export interface SupervisorEvents {
  status: [{ uid: string; status: StreamStatus; reason?: string }];
  segment: [{ uid: string; startedAt: Date; durationMs: number; discontinuity: boolean }];
  gap: [{ uid: string; from: Date; to: Date; reason: string }];
  /** An ingest failed; `attempts` consecutive failures so far. */
  reconnect_failed: [{ uid: string; attempts: number; error: string }];
}

interface Runtime {
  id: number;
  uid: string;
  sourceUrl: string;
  ingest?: Ingest;
  runId?: string;
  /** Bumped whenever an ingest is replaced, so late events of an old one are ignored. */
  generation: number;
  /** Where the previous segment ended: the next run's first segment starts a gap from here. */
  lastSegmentEnd?: Date;
  /** Why the recording stopped last, for the gap it leaves. */
  interruption: string;
  segmentsThisRun: number;
  retryTimer?: NodeJS.Timeout;
  watchdog?: NodeJS.Timeout;
}

/** The budget of each ONVIF request made to resolve an `onvif://` source. */
const ONVIF_TIMEOUT_MS = 5_000;

/** How far a segment's wall-clock start may stray from its predecessor's end and still be joined to it. */
const SNAP_TOLERANCE_MS = 1_000;

/** Exponential backoff with jitter: about initial, 2×, 4× … capped, each between 50 % and 100 %. */
export function backoffDelay(failures: number, initialMs: number, maxMs: number, random = Math.random): number {
  const ceiling = Math.min(maxMs, initialMs * 2 ** Math.max(0, failures - 1));
  return Math.round(ceiling * (0.5 + random() / 2));
}

/**
 * Owns every stream's ingest: starts it, turns its segments into the archive, watches that it
 * keeps producing, retries with backoff when it fails and gives up after the reconnect limit.
 * The database holds the status and reconnection data, kept current as things happen.
 */
export function createSupervisor(ctx: CoreContext, store: SegmentStore, driver: StreamDriver, options: SupervisorOptions) {
  const { db, logger } = ctx;
  const events = new EventEmitter<SupervisorEvents>();
  const runtimes = new Map<string, Runtime>();
  let closed = false;
  /** Aborted on close, so that no ONVIF resolution holds the shutdown up. */
  const shutdown = new AbortController();
  /** Work in flight (segment commits, status writes), awaited on close. */
  const pending = new Set<Promise<unknown>>();

  function track<T>(promise: Promise<T>): Promise<T> {
    pending.add(promise);
    void promise.finally(() => pending.delete(promise)).catch(() => {});
    return promise;
  }

  async function setStatus(runtime: Runtime, status: StreamStatus, reason?: string) {
    await db.update(streams).set({ status, updatedAt: ctx.now() }).where(eq(streams.id, runtime.id));
    events.emit('status', { uid: runtime.uid, status, ...(reason ? { reason } : {}) });
  }

  function clearTimers(runtime: Runtime) {
    clearTimeout(runtime.retryTimer);
    clearTimeout(runtime.watchdog);
    runtime.retryTimer = undefined;
    runtime.watchdog = undefined;
  }

  function armWatchdog(runtime: Runtime, generation: number) {
    clearTimeout(runtime.watchdog);
    runtime.watchdog = setTimeout(() => {
      if (runtime.generation !== generation) return;
      void track(fail(runtime, generation, `no segment for ${Math.round(options.watchdogMs / 1000)} s`));
    }, options.watchdogMs);
    runtime.watchdog.unref();
  }

  async function stopIngest(runtime: Runtime) {
    runtime.generation += 1;
    clearTimers(runtime);
    const { ingest, runId } = runtime;
    runtime.ingest = undefined;
    runtime.runId = undefined;
    await ingest?.stop();
    if (runId) await store.removeRunDir(runtime.uid, runId);
  }

  /**
   * The URL the driver pulls: the stored source, or for `onvif://<host>:<port>/<type>` the camera's
   * RTSP address of that type asked over ONVIF now, with its credentials. Errors name no credentials.
   */
  async function resolveSource(runtime: Runtime): Promise<string> {
    if (!runtime.sourceUrl.startsWith('onvif:')) return runtime.sourceUrl;
    const source = new URL(runtime.sourceUrl);
    const [camera] = await db
      .select({ login: cameras.onvifLogin, password: cameras.onvifPasswordEncrypted })
      .from(streams)
      .innerJoin(cameras, eq(cameras.id, streams.cameraId))
      .where(eq(streams.id, runtime.id));
    if (!camera?.login || !camera.password) throw new VssError('device_error', 'The camera has no ONVIF credentials.');
    const uris = await resolveOnvifStreamUris(
      { host: source.hostname, port: Number(source.port || 80), login: camera.login, password: ctx.secrets.open(camera.password) },
      { timeoutMs: ONVIF_TIMEOUT_MS, signal: shutdown.signal },
    );
    return source.pathname === '/low' ? uris.low : uris.high;
  }

  async function launch(runtime: Runtime) {
    if (closed) return;
    const generation = runtime.generation;
    const runId = `${Date.now()}-${randomBytes(3).toString('hex')}`;
    const segmentDir = await store.createRunDir(runtime.uid, runId);
    if (runtime.generation !== generation || closed) return;
    runtime.runId = runId;
    runtime.segmentsThisRun = 0;
    await setStatus(runtime, 'initialization');
    let sourceUrl: string;
    try {
      sourceUrl = await resolveSource(runtime);
    } catch (error) {
      const message = error instanceof VssError ? error.message : 'the stream address could not be resolved';
      await fail(runtime, generation, `ONVIF: ${message}`);
      return;
    }
    // A restart, a source change or the close may have come while the address was being resolved.
    if (runtime.generation !== generation || closed) return;
    runtime.ingest = driver.start(
      { uid: runtime.uid, sourceUrl, segmentDir, segmentSeconds: options.segmentSeconds },
      {
        segment: (segment) => {
          if (runtime.generation !== generation) return;
          armWatchdog(runtime, generation);
          void track(onSegment(runtime, generation, segment.path, segment.duration));
        },
        exit: (reason) => {
          if (runtime.generation !== generation) return;
          void track(fail(runtime, generation, reason));
        },
      },
    );
    armWatchdog(runtime, generation);
  }

  async function onSegment(runtime: Runtime, generation: number, file: string, durationSeconds: number) {
    const durationMs = Math.round(durationSeconds * 1000);
    const now = ctx.now();
    const first = runtime.segmentsThisRun === 0;
    runtime.segmentsThisRun += 1;
    // A segment ended just now. Within a run it follows its predecessor exactly unless the wall
    // clock has moved away by more than the snap tolerance (camera clock drift, a clock step), so
    // the index stays on wall-clock time without tiny gaps or overlaps.
    const lastEnd = runtime.lastSegmentEnd;
    let startedAt = new Date(now.getTime() - durationMs);
    if (lastEnd && (startedAt < lastEnd || (!first && startedAt.getTime() - lastEnd.getTime() <= SNAP_TOLERANCE_MS))) {
      startedAt = lastEnd;
    }
    const gap =
      first && runtime.lastSegmentEnd && startedAt > runtime.lastSegmentEnd
        ? { from: runtime.lastSegmentEnd, reason: runtime.interruption }
        : undefined;
    // A new run's timestamps start afresh, so players must reset at its first segment even when no
    // time was lost.
    const discontinuity = first && lastEnd !== undefined;
    runtime.lastSegmentEnd = new Date(startedAt.getTime() + durationMs);
    try {
      await store.commit(runtime, file, startedAt, durationMs, { gap, discontinuity });
    } catch (error) {
      logger.error('segment could not be stored', { uid: runtime.uid, error });
      return;
    }
    if (gap) events.emit('gap', { uid: runtime.uid, from: gap.from, to: startedAt, reason: gap.reason });
    events.emit('segment', { uid: runtime.uid, startedAt, durationMs, discontinuity });
    if (first && runtime.generation === generation) {
      await db
        .update(streams)
        .set({ status: 'active', reconnectAttempts: 0, updatedAt: ctx.now() })
        .where(eq(streams.id, runtime.id));
      events.emit('status', { uid: runtime.uid, status: 'active' });
      logger.info('stream active', { uid: runtime.uid });
    }
  }

  async function fail(runtime: Runtime, generation: number, reason: string) {
    if (runtime.generation !== generation || closed) return;
    await stopIngest(runtime);
    runtime.interruption = reason;
    const now = ctx.now();
    // One update, so that nobody ever reads the new failure count beside the old status.
    const [updated] = await db
      .update(streams)
      .set({
        reconnectAttempts: sql`${streams.reconnectAttempts} + 1`,
        reconnectsTotal: sql`${streams.reconnectsTotal} + 1`,
        lastError: reason,
        lastErrorAt: now,
        status: sql`case when ${streams.reconnectAttempts} + 1 >= ${options.reconnectLimit} then 'inactive' else 'initialization' end`,
        updatedAt: now,
      })
      .where(eq(streams.id, runtime.id))
      .returning({ attempts: streams.reconnectAttempts });
    const attempts = updated?.attempts ?? 1;
    logger.warn('stream ingest failed', { uid: runtime.uid, reason, attempts });
    events.emit('reconnect_failed', { uid: runtime.uid, attempts, error: reason });
    if (attempts >= options.reconnectLimit) {
      events.emit('status', { uid: runtime.uid, status: 'inactive', reason: `gave up after ${attempts} consecutive failures` });
      return;
    }
    events.emit('status', { uid: runtime.uid, status: 'initialization', reason });
    const delay = backoffDelay(attempts, options.initialBackoffMs, options.maxBackoffMs);
    const retryGeneration = runtime.generation;
    runtime.retryTimer = setTimeout(() => {
      if (runtime.generation === retryGeneration) void track(launch(runtime));
    }, delay);
    runtime.retryTimer.unref();
  }

  async function loadRuntime(uid: string): Promise<Runtime | undefined> {
    const [row] = await db.select().from(streams).where(eq(streams.uid, uid));
    if (!row?.sourceUrlEncrypted) return undefined;
    const existing = runtimes.get(uid);
    const [latest] = await store.latest(row.id, 1);
    const runtime: Runtime = existing ?? {
      id: row.id,
      uid,
      sourceUrl: '',
      generation: 0,
      interruption: 'server restart',
      segmentsThisRun: 0,
      ...(latest ? { lastSegmentEnd: new Date(latest.startedAt.getTime() + latest.durationMs) } : {}),
    };
    runtime.sourceUrl = ctx.secrets.open(row.sourceUrlEncrypted);
    runtimes.set(uid, runtime);
    return runtime;
  }

  /** (Re)starts the ingest of each stream now, whatever it was doing. */
  async function restart(uids: string[], reason: string) {
    for (const uid of uids) {
      const runtime = await loadRuntime(uid);
      if (!runtime) continue;
      await stopIngest(runtime);
      runtime.interruption = reason;
      await track(launch(runtime));
    }
  }

  return {
    events,

    /** Starts every stream that has a source and has not given up. */
    async start() {
      const rows = await db
        .select({ uid: streams.uid })
        .from(streams)
        .where(and(isNotNull(streams.sourceUrlEncrypted), ne(streams.status, 'inactive')));
      await restart(
        rows.map((row) => row.uid),
        'server restart',
      );
    },

    /** A stream was created or its source changed. */
    changed: (uids: string[]) => track(restart(uids, 'source changed')),

    /** Stream.Restart: counters were zeroed; the ingest starts over now, also for an inactive stream. */
    restarted: (uids: string[]) => track(restart(uids, 'restart')),

    /** Live status of the ingests, for tests and diagnostics. */
    running(): string[] {
      return [...runtimes.values()].filter((runtime) => runtime.ingest).map((runtime) => runtime.uid);
    },

    async close() {
      closed = true;
      shutdown.abort();
      await Promise.all([...runtimes.values()].map((runtime) => stopIngest(runtime)));
      await Promise.allSettled([...pending]);
      runtimes.clear();
    },

  };
}

export type Supervisor = ReturnType<typeof createSupervisor>;
