#!/usr/bin/env node
// Stream-ingest benchmark: N simulated RTSP cameras recorded by the VSS server for S seconds, then
// the same N cameras pulled by N plain `ffmpeg -c copy -f hls` processes for S seconds, in the
// same run. Prints CPU and private memory per stream and segments written vs expected for both,
// and the VSS/plain ratios. Figures only: it asserts nothing, and exits non-zero only when
// something failed to start.
//
//   pnpm build && node bench/streams/run.mjs --streams 50 --seconds 60 [--clip 1080p|1080p-test|360p]
//
// Plain ESM on the built packages (packages/core/dist, apps/server/dist): no TypeScript loader
// is needed. Linux only (it reads /proc). Everything listens on and connects to 127.0.0.1.
import { execFile, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rename, rm, stat } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '../..');
const SERVER_CLI = join(ROOT, 'apps/server/dist/cli.js');
const CORE_DIST = join(ROOT, 'packages/core/dist');
const SEGMENT_SECONDS = 2;
const FPS = 25;
const MiB = 1024 * 1024;
const run = promisify(execFile);

// ---------------------------------------------------------------------------------------------
// Arguments

const USAGE = `Usage: node bench/streams/run.mjs [options]

  --streams N        simulated cameras (default 10)
  --seconds S        measuring window of each phase, in seconds (default 60)
  --clip C           1080p: 1920x1080 25 fps ~2 Mbps H.264 (testsrc2), encoded once by the bench (default)
                     1080p-test: ensureTestClip({width:1920,height:1080}) (its fixed 400 kb/s)
                     360p: ensureTestClip() as the tests use it (640x360, 400 kb/s)
  --warmup W         seconds between "all streams running" and the window (default 6)
  --phases P         vss,plain (default both)
  --profile          run the server with --cpu-prof and print where its own CPU went
                     (the profiler adds overhead: the server's figures are then inflated)
  --keep             keep the temporary directories (data dir, HLS output)
  --json             also print the figures as one JSON line
`;

let args;
try {
  ({ values: args } = parseArgs({
    options: {
      streams: { type: 'string', default: '10' },
      seconds: { type: 'string', default: '60' },
      clip: { type: 'string', default: '1080p' },
      warmup: { type: 'string', default: '6' },
      phases: { type: 'string', default: 'vss,plain' },
      profile: { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  }));
} catch (error) {
  console.error(`${error.message}\n\n${USAGE}`);
  process.exit(2);
}
if (args.help) {
  console.log(USAGE);
  process.exit(0);
}
const whole = (name, min, max) => {
  const text = args[name];
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max) {
    console.error(`--${name} must be a whole number from ${min} to ${max}.\n\n${USAGE}`);
    process.exit(2);
  }
  return Number(text);
};
const N = whole('streams', 1, 1000);
const S = whole('seconds', 2, 3600);
const WARMUP = whole('warmup', 0, 600);
const CLIPS = ['1080p', '1080p-test', '360p'];
if (!CLIPS.includes(args.clip)) {
  console.error(`--clip must be one of ${CLIPS.join(', ')}.\n\n${USAGE}`);
  process.exit(2);
}
const PHASES = args.phases.split(',').map((p) => p.trim());
if (PHASES.length === 0 || PHASES.some((p) => p !== 'vss' && p !== 'plain')) {
  console.error(`--phases takes vss, plain or vss,plain.\n\n${USAGE}`);
  process.exit(2);
}
if (process.platform !== 'linux') {
  console.error('The benchmark reads /proc: Linux only.');
  process.exit(2);
}
for (const file of [SERVER_CLI, join(CORE_DIST, 'index.js'), join(CORE_DIST, 'testing/index.js')]) {
  if (!existsSync(file)) {
    console.error(`${file} is missing: build first (pnpm build).`);
    process.exit(2);
  }
}

const { resolveMediaBinaries } = await import(join(CORE_DIST, 'index.js'));
const { ensureTestClip } = await import(join(CORE_DIST, 'testing/index.js'));

// ---------------------------------------------------------------------------------------------
// Everything this run starts, so that every exit path takes it down.

/** @type {Set<import('node:child_process').ChildProcess>} */
const children = new Set();
/** Grandchildren (the server's ffmpeg processes) by pid, with their start time to rule out pid reuse. */
const grandchildren = new Map();
const temporaryDirs = new Set();

function track(child) {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

function killEverything(signal = 'SIGKILL') {
  for (const child of children) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    // The server's ffmpeg processes would outlive a killed server for a while: take them too.
    for (const pid of childPids(child.pid)) {
      const s = readStat(pid);
      if (s) grandchildren.set(pid, s.starttime);
    }
    child.kill(signal);
  }
  for (const [pid, starttime] of grandchildren) {
    if (readStat(pid)?.starttime === starttime) {
      try {
        process.kill(pid, signal);
      } catch {
        // already gone
      }
    }
  }
}

let cleaningUp = false;
async function cleanup() {
  if (cleaningUp) return;
  cleaningUp = true;
  killEverything('SIGKILL');
  if (!args.keep) {
    for (const dir of temporaryDirs) await rm(dir, { recursive: true, force: true }).catch(() => {});
  } else if (temporaryDirs.size > 0) {
    console.error(`kept: ${[...temporaryDirs].join(' ')}`);
  }
}

process.on('exit', () => killEverything('SIGKILL'));
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.once(signal, () => {
    console.error(`\n${signal}: stopping everything`);
    void cleanup().finally(() => process.exit(130));
  });
}

class StartFailure extends Error {}

// A hard ceiling on the whole run, whatever happens.
const budgetMs = (300 + 2 * (S + WARMUP) * PHASES.length + 2 * N) * 1000;
setTimeout(() => {
  console.error(`The run exceeded its ${Math.round(budgetMs / 1000)} s budget: stopping everything.`);
  void cleanup().finally(() => process.exit(1));
}, budgetMs).unref();

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function waitFor(check, { timeoutMs, intervalMs = 500, what }) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new StartFailure(`timed out waiting for ${what}`);
    await sleep(intervalMs);
  }
}

// ---------------------------------------------------------------------------------------------
// /proc

const CLK_TCK = Number((await run('getconf', ['CLK_TCK']).catch(() => ({ stdout: '100' }))).stdout.trim()) || 100;

/** utime+stime (ticks), ppid, comm and start time of a process or a thread, or undefined once gone. */
function readStat(pid, task) {
  try {
    const text = readFileSync(task ? `/proc/${pid}/task/${task}/stat` : `/proc/${pid}/stat`, 'utf8');
    const close = text.lastIndexOf(')');
    const comm = text.slice(text.indexOf('(') + 1, close);
    const f = text.slice(close + 2).split(' ');
    // f[0] is field 3 (state): utime is field 14, stime 15, starttime 22.
    return { pid, comm, ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]), starttime: Number(f[19]) };
  } catch {
    return undefined;
  }
}

/** Direct children of a process: /proc/<pid>/task/<tid>/children, else a scan of /proc for ppid. */
function childPids(pid) {
  try {
    const pids = [];
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const text = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
      if (text) pids.push(...text.split(/\s+/).map(Number));
    }
    return pids;
  } catch {
    return readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .map(Number)
      .filter((p) => readStat(p)?.ppid === pid);
  }
}

/** Private_Clean + Private_Dirty, in bytes: memory only this process holds. */
function privateBytes(pid) {
  let text;
  try {
    text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  } catch {
    try {
      text = readFileSync(`/proc/${pid}/smaps`, 'utf8');
    } catch {
      return 0;
    }
  }
  let kB = 0;
  for (const match of text.matchAll(/^Private_(?:Clean|Dirty):\s+(\d+) kB/gm)) kB += Number(match[1]);
  return kB * 1024;
}

/** Busy and total jiffies of the whole machine. */
function machineTicks() {
  const [, ...f] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const v = f.map(Number);
  const total = v.slice(0, 8).reduce((a, b) => a + b, 0);
  const idle = v[3] + v[4];
  return { busy: total - idle, total };
}

/** Per-thread CPU of one process, summed by thread name (main thread, libuv pool, V8 workers …). */
function threadTicks(pid) {
  const byName = new Map();
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const s = readStat(pid, task);
      if (!s) continue;
      const comm = s.comm.replace(/\d+$/, '').trim();
      // Unnamed threads inherit the process name: V8's platform workers and the libuv pool.
      const name = Number(task) === pid ? 'main thread' : comm === 'node' ? 'worker threads' : comm;
      byName.set(name, (byName.get(name) ?? 0) + s.ticks);
    }
  } catch {
    // the process ended while being read
  }
  return byName;
}

const snapshot = (pids) => new Map(pids.map((pid) => [pid, readStat(pid)]).filter(([, s]) => s));

/**
 * CPU seconds a set of processes spent between two snapshots. Processes started during the window
 * count from their start; those that ended during it are lost (and reported).
 */
function cpuBetween(before, after) {
  let ticks = 0;
  let started = 0;
  for (const [pid, s] of after) {
    const b = before.get(pid);
    if (b && b.starttime === s.starttime) ticks += s.ticks - b.ticks;
    else {
      ticks += s.ticks;
      started++;
    }
  }
  let ended = 0;
  for (const [pid, b] of before) {
    const s = after.get(pid);
    if (!s || s.starttime !== b.starttime) ended++;
  }
  return { seconds: ticks / CLK_TCK, started, ended };
}

// ---------------------------------------------------------------------------------------------
// The clip

async function prepareClip(ffmpeg) {
  if (args.clip === '360p') {
    const clip = await ensureTestClip();
    return { ...clip, description: `ensureTestClip() ${clip.width}x${clip.height} ${clip.fps} fps` };
  }
  if (args.clip === '1080p-test') {
    const clip = await ensureTestClip({ width: 1920, height: 1080, fps: FPS });
    return { ...clip, description: `ensureTestClip() ${clip.width}x${clip.height} ${clip.fps} fps` };
  }
  // ensureTestClip has no bitrate option (it encodes at 400 kb/s), and testsrc at 1080p falls short
  // of 2 Mb/s even when asked for it; testsrc2 reaches it. Same stream shape as the test clip
  // otherwise: baseline, no B-frames, a keyframe every 2 s with SPS/PPS before each.
  const seconds = 10;
  const gop = SEGMENT_SECONDS * FPS;
  const encoding = [
    '-f', 'lavfi', '-i', `testsrc2=size=1920x1080:rate=${FPS}`, '-t', String(seconds), '-an',
    '-c:v', 'libx264', '-profile:v', 'baseline', '-pix_fmt', 'yuv420p', '-preset', 'veryfast',
    '-bf', '0', '-g', String(gop), '-keyint_min', String(gop), '-sc_threshold', '0', '-b:v', '2M',
    '-x264-params', 'repeat-headers=1', '-f', 'h264',
  ];
  const key = createHash('sha256').update(encoding.join(' ')).digest('hex').slice(0, 16);
  const path = join(tmpdir(), 'vss-bench-clips', `${key}.h264`);
  const cached = await stat(path).catch(() => undefined);
  if (!cached?.size) {
    console.log('encoding the 1080p clip once (cached in the temporary directory) …');
    await mkdir(dirname(path), { recursive: true });
    const partial = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.partial`;
    try {
      await run(ffmpeg.path, ['-hide_banner', '-v', 'error', '-y', ...encoding, partial], { timeout: 180_000 });
      await rename(partial, path);
    } finally {
      await rm(partial, { force: true });
    }
  }
  return { path, width: 1920, height: 1080, fps: FPS, seconds, gopSeconds: SEGMENT_SECONDS, description: 'testsrc2 1920x1080 25 fps' };
}

// ---------------------------------------------------------------------------------------------
// Child processes

/** Keeps the last lines of a stream, for error messages; lines go to `onLine` too. */
function tail(stream, keep = 8, onLine = () => {}) {
  const lines = [];
  createInterface({ input: stream }).on('line', (line) => {
    lines.push(line);
    if (lines.length > keep) lines.shift();
    onLine(line);
  });
  return lines;
}

function exited(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((r) => child.once('exit', () => r()));
}

async function stopChild(child, graceMs) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited(child);
  clearTimeout(timer);
}

async function startCamera(clip) {
  const child = track(
    spawn(process.execPath, [join(HERE, 'camera.mjs'), '--clip', clip.path, '--fps', String(clip.fps), '--max-seconds', String(Math.ceil(budgetMs / 1000) + 60)], {
      stdio: ['pipe', 'pipe', 'pipe'],
    }),
  );
  const errors = tail(child.stderr);
  const replies = [];
  let waiting;
  createInterface({ input: child.stdout }).on('line', (line) => {
    try {
      const message = JSON.parse(line);
      if (waiting) waiting(message);
      else replies.push(message);
    } catch {
      // not a JSON line
    }
  });
  const next = () =>
    replies.length > 0 ? Promise.resolve(replies.shift()) : new Promise((r) => (waiting = (m) => ((waiting = undefined), r(m))));
  const first = await Promise.race([
    next(),
    exited(child).then(() => undefined),
    sleep(30_000).then(() => undefined),
  ]);
  if (!first?.port) throw new StartFailure(`the camera process did not start: ${errors.join(' | ')}`);
  return {
    pid: child.pid,
    url: (i) => `rtsp://127.0.0.1:${first.port}/cam${i}`,
    async sessions() {
      child.stdin.write('sessions\n');
      const reply = await Promise.race([next(), sleep(5_000).then(() => ({ sessions: NaN }))]);
      return reply.sessions;
    },
    stop: () => {
      child.stdin.end();
      return stopChild(child, 5_000);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Measuring window

/** Measures `pids()` (re-read at both ends) and extra fixed pids over the window. */
async function measureWindow({ groups, observe }) {
  const scan = () => Object.fromEntries(Object.entries(groups).map(([name, pids]) => [name, snapshot(pids())]));
  const before = scan();
  const memoryAt = (snap) =>
    Object.fromEntries(Object.entries(snap).map(([name, procs]) => [name, [...procs.keys()].reduce((sum, pid) => sum + privateBytes(pid), 0)]));
  const memoryBefore = memoryAt(before);
  const machine0 = machineTicks();
  const segments0 = await observe();
  const wall0 = Date.now();
  const t0 = performance.now();
  // CLOCK_MONOTONIC in µs: the clock of V8's CPU profiles too, so samples can be cut to the window.
  const monotonic0 = Number(process.hrtime.bigint() / 1000n);
  await sleep(S * 1000);
  const after = scan();
  const monotonic1 = Number(process.hrtime.bigint() / 1000n);
  const machine1 = machineTicks();
  const elapsed = (performance.now() - t0) / 1000;
  const wall1 = Date.now();
  const segments1 = await observe();
  const cpu = Object.fromEntries(Object.keys(groups).map((name) => [name, cpuBetween(before[name], after[name])]));
  const memory = memoryAt(after);
  const busyCores = (machine1.busy - machine0.busy) / ((machine1.total - machine0.total) / cpus().length);
  return { elapsed, cpu, memory, memoryBefore, before, after, segments0, segments1, busyCores, monotonic0, monotonic1, wall0, wall1 };
}

/** Segments per stream in the window against one per segment period; a stream's shortfall is lost. */
function segmentFigures(counts) {
  const expectedEach = Math.floor(S / SEGMENT_SECONDS);
  let written = 0;
  let lost = 0;
  let streamsShort = 0;
  const short = [];
  for (let i = 0; i < N; i++) {
    const n = counts[i] ?? 0;
    written += n;
    if (n < expectedEach) {
      lost += expectedEach - n;
      streamsShort++;
      if (short.length < 10) short.push(`cam${i}: ${n}`);
    }
  }
  return { written, expected: expectedEach * N, lost, streamsShort, short };
}

// ---------------------------------------------------------------------------------------------
// Phase (b): the VSS server

async function freePort() {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  await new Promise((r) => server.close(r));
  return port;
}

async function runVss(camera, ffmpeg) {
  const dataDir = await mkdtemp(join(tmpdir(), 'vss-bench-data-'));
  temporaryDirs.add(dataDir);
  const profileDir = args.profile ? join(dataDir, 'cpu-profile') : undefined;
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('VSS_') && name !== 'DATABASE_URL' && name !== 'NODE_OPTIONS'),
  );
  const port = await freePort();
  Object.assign(env, {
    HOST: '127.0.0.1',
    PORT: String(port),
    VSS_DATA_DIR: dataDir,
    VSS_MEDIA: 'on',
    VSS_SEGMENT_SECONDS: String(SEGMENT_SECONDS),
    // The benchmark's data directory is small and temporary: the disk's free space must not start
    // the pressure sweep on a busy shared disk.
    VSS_MIN_FREE_BYTES: '0',
  });
  const nodeArgs = profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [];
  const server = track(spawn(process.execPath, [...nodeArgs, SERVER_CLI, 'start'], { env, cwd: dataDir, stdio: ['ignore', 'pipe', 'pipe'] }));
  let listening;
  const logTail = tail(server.stdout, 12, (line) => {
    if (listening) return;
    try {
      const entry = JSON.parse(line);
      if (entry.msg === 'vss listening') listening = entry.url;
    } catch {
      // not a JSON log line
    }
  });
  const errTail = tail(server.stderr, 12);
  const failure = (what) => new StartFailure(`${what}\n  server stdout: ${logTail.join('\n    ')}\n  server stderr: ${errTail.join('\n    ')}`);

  try {
    await waitFor(() => listening || server.exitCode !== null, { timeoutMs: 60_000, intervalMs: 100, what: 'the server to listen' }).catch(() => {
      throw failure('the server did not start listening within 60 s');
    });
    if (!listening) throw failure(`the server exited (${server.exitCode})`);
    const base = listening;

    let token;
    const api = async (path, body, expected = body === undefined ? 200 : 201) => {
      const response = await fetch(`${base}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: {
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      if (response.status !== expected && !(expected === 201 && response.status === 200)) {
        throw failure(`${body === undefined ? 'GET' : 'POST'} ${path}: ${response.status} ${text.slice(0, 300)}`);
      }
      return text ? JSON.parse(text) : undefined;
    };

    token = await api('/api/auth/token/api/', { client: 'bench-streams', duration: 0 }, 200);
    const group = await api('/api/admin/v1/tree-elements', { name: 'Bench' });
    const uids = new Array(N);
    const setupStart = performance.now();
    let nextCamera = 0;
    const createCameras = async () => {
      for (let i = nextCamera++; i < N; i = nextCamera++) {
        const mac = `02:be:00:00:${((i >> 8) & 0xff).toString(16).padStart(2, '0')}:${(i & 0xff).toString(16).padStart(2, '0')}`;
        const cam = await api('/api/v2/billing/cameras', {
          name: `Bench ${i}`,
          mac,
          group_id: group.id,
          streams: [{ type: 'high', is_archive_enabled: true, archive_storage_days: 1 }],
        });
        const stream = await api(`/api/admin/v1/cameras/${cam.id}/streams`, { type: 'high', url: camera.url(i) });
        uids[i] = stream.uid;
      }
    };
    // A few requests at a time: setup is not what is measured, and 400 cameras one by one take a while.
    await Promise.all(Array.from({ length: Math.min(8, N) }, createCameras));
    console.log(`vss: ${N} cameras created in ${((performance.now() - setupStart) / 1000).toFixed(1)} s; waiting for every stream to be active …`);

    const pending = new Set(uids);
    await waitFor(
      async () => {
        for (const uid of [...pending]) {
          const stream = await api(`/api/admin/v1/streams/${uid}`);
          if (stream.status === 'active') pending.delete(uid);
        }
        return pending.size === 0;
      },
      { timeoutMs: 30_000 + 300 * N, intervalMs: 1_000, what: 'every stream to be active' },
    ).catch(async (error) => {
      const sample = [...pending].slice(0, 3);
      const details = await Promise.all(sample.map((uid) => api(`/api/admin/v1/streams/${uid}`).catch((e) => String(e))));
      throw failure(`${error.message}: ${pending.size} of ${N} not active, e.g. ${JSON.stringify(details)}`);
    });
    console.log(`vss: all ${N} streams active after ${((performance.now() - setupStart) / 1000).toFixed(1)} s; warming up ${WARMUP} s, then measuring ${S} s …`);
    await sleep(WARMUP * 1000);

    const ffmpegPids = () => {
      const pids = childPids(server.pid).filter((pid) => readStat(pid)?.comm === 'ffmpeg');
      for (const pid of pids) {
        const s = readStat(pid);
        if (s) grandchildren.set(pid, s.starttime);
      }
      return pids;
    };
    const mediaDir = join(dataDir, 'media');
    // A segment is named after its wall-clock start (ms) once it is synced and indexed.
    const segmentStarts = async () =>
      Promise.all(
        uids.map(async (uid) =>
          (await readdir(join(mediaDir, uid)).catch(() => [])).filter((n) => /^\d+\.ts$/.test(n)).map((n) => Number.parseInt(n, 10)),
        ),
      );
    const threads0 = threadTicks(server.pid);
    const window = await measureWindow({
      groups: { server: () => [server.pid], ffmpeg: ffmpegPids, camera: () => [camera.pid] },
      observe: segmentStarts,
    });
    const threads1 = threadTicks(server.pid);
    // How far behind the index was at the window's end: time since the newest indexed segment ended.
    const lags = window.segments1
      .map((starts) => (window.wall1 - (Math.max(-Infinity, ...starts) + SEGMENT_SECONDS * 1000)) / 1000)
      .sort((a, b) => a - b);
    // Segments are counted by their start, once every segment begun in the window is indexed (a
    // busy server indexes late; late is not lost): wait until each stream has one begun after it.
    const settleStart = performance.now();
    let starts = await segmentStarts();
    while (performance.now() - settleStart < 20_000 && starts.some((list) => !list.some((start) => start >= window.wall1))) {
      await sleep(500);
      starts = await segmentStarts();
    }
    const counts = starts.map((list) => list.filter((start) => start >= window.wall0 && start < window.wall1).length);

    // After the window: what the server itself says about its streams.
    let notActive = 0;
    let reconnections = 0;
    for (const uid of uids) {
      const stream = await api(`/api/admin/v1/streams/${uid}`).catch(() => undefined);
      if (stream?.status !== 'active') notActive++;
      reconnections += stream?.reconnection?.total ?? 0;
    }
    const serverFfmpegPath = (() => {
      for (const pid of window.after.ffmpeg.keys()) {
        try {
          return (readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0]) || undefined;
        } catch {
          // that ffmpeg has ended
        }
      }
      return undefined;
    })();

    const threads = [...threads1].map(([name, ticks]) => [name, (ticks - (threads0.get(name) ?? 0)) / CLK_TCK]).sort((a, b) => b[1] - a[1]);
    return {
      ...window,
      segments: segmentFigures(counts),
      indexLag: { median: lags[Math.floor(lags.length / 2)], max: lags[lags.length - 1] },
      ffmpegProcesses: window.after.ffmpeg.size,
      notActive,
      reconnections,
      threads,
      serverFfmpegPath,
      profileDir,
      sameFfmpeg: !serverFfmpegPath || resolve(serverFfmpegPath) === resolve(ffmpeg.path) || serverFfmpegPath === 'ffmpeg',
    };
  } finally {
    const stopping = performance.now();
    await stopChild(server, 20_000);
    // The server stops its ingests on SIGTERM; whatever it left behind goes now.
    for (const [pid, starttime] of grandchildren) {
      if (readStat(pid)?.starttime === starttime) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
    grandchildren.clear();
    console.log(`vss: server stopped in ${((performance.now() - stopping) / 1000).toFixed(1)} s`);
  }
}

// ---------------------------------------------------------------------------------------------
// Phase (c): plain ffmpeg

/** Index of the last complete segment in an HLS playlist (media sequence + entries − 1), or -1. */
async function lastSequence(playlist) {
  // The playlist is rewritten after every segment: a read can catch it missing or half written.
  for (let attempt = 0; attempt < 20; attempt++) {
    const text = await readFile(playlist, 'utf8').catch(() => '');
    const sequence = /#EXT-X-MEDIA-SEQUENCE:(\d+)/.exec(text);
    const entries = text.match(/^#EXTINF:/gm)?.length ?? 0;
    if (sequence && entries > 0 && /(\.ts|#EXT-X-ENDLIST)\s*$/.test(text)) return Number(sequence[1]) + entries - 1;
    await sleep(25);
  }
  return -1;
}

async function runPlain(camera, ffmpeg) {
  const outDir = await mkdtemp(join(tmpdir(), 'vss-bench-hls-'));
  temporaryDirs.add(outDir);
  const processes = [];
  try {
    for (let i = 0; i < N; i++) {
      const dir = join(outDir, String(i));
      await mkdir(dir);
      const child = track(
        spawn(
          ffmpeg.path,
          [
            '-nostdin', '-loglevel', 'error', '-rtsp_transport', 'tcp', '-i', camera.url(i),
            '-map', '0:v:0', '-c', 'copy',
            '-f', 'hls', '-hls_time', String(SEGMENT_SECONDS), '-hls_list_size', '5', '-hls_flags', 'delete_segments',
            join(dir, 'index.m3u8'),
          ],
          { stdio: ['ignore', 'ignore', 'pipe'] },
        ),
      );
      processes.push({ child, errors: tail(child.stderr, 4), playlist: join(dir, 'index.m3u8') });
    }
    const setupStart = performance.now();
    await waitFor(
      async () => {
        const dead = processes.find((p) => p.child.exitCode !== null || p.child.signalCode !== null);
        if (dead) throw new StartFailure(`a plain ffmpeg exited at start: ${dead.errors.join(' | ')}`);
        const sequences = await Promise.all(processes.map((p) => lastSequence(p.playlist)));
        return sequences.every((s) => s >= 0);
      },
      { timeoutMs: 30_000 + 300 * N, intervalMs: 1_000, what: 'every plain ffmpeg to write a segment' },
    );
    console.log(`plain: all ${N} ffmpeg writing after ${((performance.now() - setupStart) / 1000).toFixed(1)} s; warming up ${WARMUP} s, then measuring ${S} s …`);
    await sleep(WARMUP * 1000);
    const pids = processes.map((p) => p.child.pid);
    const window = await measureWindow({
      groups: { ffmpeg: () => pids, camera: () => [camera.pid] },
      observe: () => Promise.all(processes.map((p) => lastSequence(p.playlist))),
    });
    const exitedEarly = processes.filter((p) => p.child.exitCode !== null || p.child.signalCode !== null).length;
    // Segments completed in the window, from the media sequence of the last one listed.
    const counts = window.segments1.map((last, i) => Math.max(0, last - window.segments0[i]));
    return { ...window, segments: segmentFigures(counts), ffmpegProcesses: window.after.ffmpeg.size, exitedEarly };
  } finally {
    await Promise.all(processes.map((p) => stopChild(p.child, 5_000)));
  }
}

// ---------------------------------------------------------------------------------------------
// The server's CPU profile, summarised by function and by where the code lives.

async function summariseProfile(dir, from, to) {
  const files = (await readdir(dir).catch(() => [])).filter((f) => f.endsWith('.cpuprofile'));
  if (files.length === 0) return undefined;
  const profile = JSON.parse(await readFile(join(dir, files[0]), 'utf8'));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  // Only the samples taken in the measuring window: start-up and setup are not steady state.
  const selfUs = new Map();
  let time = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i] ?? 0;
    time += delta;
    if (time < from || time > to) continue;
    const id = profile.samples[i];
    selfUs.set(id, (selfUs.get(id) ?? 0) + delta);
  }
  const where = (url) => {
    if (!url) return 'native/VM';
    if (url.startsWith('node:')) return 'node core';
    const pkg = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(url);
    if (pkg) return pkg[1];
    if (url.includes('/packages/core/')) return '@vss/core';
    if (url.includes('/apps/server/')) return '@vss/server';
    return url.replace(/^file:\/\//, '');
  };
  const functions = new Map();
  const places = new Map();
  let total = 0;
  for (const [id, us] of selfUs) {
    const { callFrame } = byId.get(id);
    if (callFrame.functionName === '(idle)') continue;
    total += us;
    const place = where(callFrame.url);
    const name = `${callFrame.functionName || '(anonymous)'} ${place}${callFrame.url ? `:${callFrame.lineNumber + 1}` : ''}`;
    functions.set(name, (functions.get(name) ?? 0) + us);
    places.set(place, (places.get(place) ?? 0) + us);
  }
  const top = (map, n) => [...map].sort((a, b) => b[1] - a[1]).slice(0, n).map(([name, us]) => [name, us / 1e6, (100 * us) / total]);
  const covered = (Math.min(to, profile.endTime) - Math.max(from, profile.startTime)) / 1e6;
  return { totalSeconds: total / 1e6, covered, places: top(places, 10), functions: top(functions, 15) };
}

// ---------------------------------------------------------------------------------------------
// Report

const pct = (seconds, elapsed) => (100 * seconds) / elapsed;
const f1 = (x) => (Number.isFinite(x) ? x.toFixed(1) : '–');
const f2 = (x) => (Number.isFinite(x) ? x.toFixed(2) : '–');

function row(cells, widths) {
  return cells.map((cell, i) => (i === 0 ? String(cell).padEnd(widths[i]) : String(cell).padStart(widths[i]))).join('  ');
}

function report({ info, vss, plain, profile }) {
  const lines = [];
  const widths = [44, 16, 16, 10];
  const v = vss && {
    cpuStream: pct(vss.cpu.server.seconds + vss.cpu.ffmpeg.seconds, vss.elapsed) / N,
    memStream: (vss.memory.server + vss.memory.ffmpeg) / MiB / N,
    ffCpuStream: pct(vss.cpu.ffmpeg.seconds, vss.elapsed) / N,
    ffMemStream: vss.memory.ffmpeg / MiB / N,
  };
  const p = plain && {
    cpuStream: pct(plain.cpu.ffmpeg.seconds, plain.elapsed) / N,
    memStream: plain.memory.ffmpeg / MiB / N,
  };
  const ratio = (a, b) => (a !== undefined && b ? f2(a / b) : '–');
  lines.push('');
  lines.push(`streams bench: N=${N} streams, window ${S} s per phase (warm-up ${WARMUP} s), ${SEGMENT_SECONDS} s segments`);
  lines.push(`  clip: ${info.clip}`);
  lines.push(`  ffmpeg: ${info.ffmpeg}`);
  lines.push(`  machine: ${info.cpus} CPUs (${info.cpuModel}), load average before ${info.loadBefore}`);
  lines.push('');
  lines.push(row(['', 'VSS', 'plain ffmpeg', 'VSS/plain'], widths));
  lines.push(row(['CPU per stream (% of one core)', v ? f2(v.cpuStream) : '–', p ? f2(p.cpuStream) : '–', ratio(v?.cpuStream, p?.cpuStream)], widths));
  lines.push(row(['private memory per stream (MiB)', v ? f1(v.memStream) : '–', p ? f1(p.memStream) : '–', ratio(v?.memStream, p?.memStream)], widths));
  lines.push(row(['  ffmpeg alone: CPU per stream (% core)', v ? f2(v.ffCpuStream) : '–', p ? f2(p.cpuStream) : '–', ratio(v?.ffCpuStream, p?.cpuStream)], widths));
  lines.push(row(['  ffmpeg alone: private MiB per stream', v ? f1(v.ffMemStream) : '–', p ? f1(p.memStream) : '–', ratio(v?.ffMemStream, p?.memStream)], widths));
  const seg = (x) => (x ? `${x.segments.written}/${x.segments.expected}` : '–');
  lines.push(row(['segments written/expected', seg(vss), seg(plain), ''], widths));
  const lost = (x) => (x ? `${x.segments.lost} (${x.segments.streamsShort} str.)` : '–');
  lines.push(row(['segments lost (streams short)', lost(vss), lost(plain), ''], widths));
  lines.push(row(['ffmpeg processes at the end / started / ended', vss ? `${vss.ffmpegProcesses}/${vss.cpu.ffmpeg.started}/${vss.cpu.ffmpeg.ended}` : '–', plain ? `${plain.ffmpegProcesses}/${plain.cpu.ffmpeg.started}/${plain.cpu.ffmpeg.ended}` : '–', ''], widths));
  lines.push(row(['camera process CPU (% of one core)', vss ? f1(pct(vss.cpu.camera.seconds, vss.elapsed)) : '–', plain ? f1(pct(plain.cpu.camera.seconds, plain.elapsed)) : '–', ''], widths));
  const other = (x, measured) => x.busyCores * 100 - pct(measured, x.elapsed);
  lines.push(row(['machine busy (% of one core, all CPUs)', vss ? f1(vss.busyCores * 100) : '–', plain ? f1(plain.busyCores * 100) : '–', ''], widths));
  lines.push(row(['  of which other processes', vss ? f1(other(vss, vss.cpu.server.seconds + vss.cpu.ffmpeg.seconds + vss.cpu.camera.seconds)) : '–', plain ? f1(other(plain, plain.cpu.ffmpeg.seconds + plain.cpu.camera.seconds)) : '–', ''], widths));
  if (vss) {
    lines.push('');
    lines.push(`VSS server process (node, without its ffmpeg): ${f1(pct(vss.cpu.server.seconds, vss.elapsed))} % of one core, ${f1(vss.memory.server / MiB)} MiB private`);
    lines.push(`  = ${f2(pct(vss.cpu.server.seconds, vss.elapsed) / N)} % and ${f2(vss.memory.server / MiB / N)} MiB per stream; private memory at the window's start ${f1(vss.memoryBefore.server / MiB)} MiB`);
    lines.push(`  by thread: ${vss.threads.filter(([, s]) => s > 0).map(([name, s]) => `${name} ${f1(pct(s, vss.elapsed))} %`).join(', ')}`);
    lines.push(`  streams not active after the window: ${vss.notActive}; reconnections: ${vss.reconnections}`);
    lines.push(`  indexing lag at the window's end (since the newest indexed segment ended): median ${f1(vss.indexLag.median)} s, max ${f1(vss.indexLag.max)} s`);
    if (!vss.sameFfmpeg) lines.push(`  NOTE: the server ran ${vss.serverFfmpegPath}, the plain phase ${info.ffmpegPath}`);
  }
  for (const [name, x] of [['VSS', vss], ['plain', plain]]) {
    if (x?.segments.short.length) lines.push(`${name} streams short of ${Math.floor(S / SEGMENT_SECONDS)} segments: ${x.segments.short.join(', ')}${x.segments.streamsShort > x.segments.short.length ? ' …' : ''}`);
  }
  if (plain?.exitedEarly) lines.push(`plain ffmpeg processes that exited during the run: ${plain.exitedEarly}`);
  if (profile) {
    lines.push('');
    lines.push(`server CPU profile, main thread, measuring window only (${f1(profile.covered)} s of it covered; ${f1(profile.totalSeconds)} s of non-idle samples):`);
    lines.push('  by package:');
    for (const [name, s, share] of profile.places) lines.push(`    ${f1(share).padStart(5)} %  ${f2(s).padStart(6)} s  ${name}`);
    lines.push('  top functions (self time):');
    for (const [name, s, share] of profile.functions) lines.push(`    ${f1(share).padStart(5)} %  ${f2(s).padStart(6)} s  ${name}`);
  }
  lines.push('');
  console.log(lines.join('\n'));
  if (args.json) {
    console.log(
      JSON.stringify({
        date: new Date().toISOString(), streams: N, seconds: S, ...info,
        vss: vss && { ...v, serverCpuPercent: pct(vss.cpu.server.seconds, vss.elapsed), serverPrivateMiB: vss.memory.server / MiB, serverPrivateMiBAtStart: vss.memoryBefore.server / MiB, segments: vss.segments, busyCores: vss.busyCores, cameraCpuPercent: pct(vss.cpu.camera.seconds, vss.elapsed), notActive: vss.notActive, reconnections: vss.reconnections, indexLag: vss.indexLag },
        plain: plain && { ...p, segments: plain.segments, busyCores: plain.busyCores, cameraCpuPercent: pct(plain.cpu.camera.seconds, plain.elapsed) },
        ratios: v && p ? { cpu: v.cpuStream / p.cpuStream, memory: v.memStream / p.memStream } : undefined,
      }),
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Main

let exitCode = 0;
try {
  const { ffmpeg } = await resolveMediaBinaries();
  const clip = await prepareClip(ffmpeg);
  const clipBytes = (await stat(clip.path)).size;
  const info = {
    clip: `${clip.description}, ${clip.seconds} s loop, keyframe every ${clip.gopSeconds} s, ${((clipBytes * 8) / clip.seconds / 1e6).toFixed(2)} Mb/s (${clip.path})`,
    ffmpeg: `${ffmpeg.version} (${ffmpeg.source}: ${ffmpeg.path})`,
    ffmpegPath: ffmpeg.path,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? '?',
    loadBefore: loadavg().map((x) => x.toFixed(2)).join(' '),
  };
  console.log(`streams bench: N=${N}, S=${S} s; load average ${info.loadBefore}; ${info.clip}`);
  const camera = await startCamera(clip);
  console.log(`camera: pid ${camera.pid}, ${camera.url(0).replace(/cam0$/, 'cam<i>')}`);
  let vss;
  let plain;
  let profile;
  try {
    if (PHASES.includes('vss')) {
      vss = await runVss(camera, ffmpeg);
      if (vss.profileDir) profile = await summariseProfile(vss.profileDir, vss.monotonic0, vss.monotonic1);
      // Let the camera notice the server's sessions are gone before the next phase.
      await sleep(2_000);
    }
    if (PHASES.includes('plain')) plain = await runPlain(camera, ffmpeg);
  } finally {
    await camera.stop();
  }
  report({ info, vss, plain, profile });
} catch (error) {
  exitCode = 1;
  console.error(error instanceof StartFailure ? `Failed to start: ${error.message}` : error);
} finally {
  await cleanup();
}
process.exit(exitCode);
