import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resolveMediaBinaries, type MediaBinaries, type MediaBinary } from '../media/binaries';
import { startRtspCameraServer, type RtspCameraServer } from './rtsp-camera';
import { ensureTestClip, type TestClip } from './test-clip';

interface Outcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

const children = new Set<ChildProcess>();

/** Runs a binary to completion, killing it after `timeoutMs`; afterEach kills whatever a failed test left behind. */
function run(binary: MediaBinary, args: string[], timeoutMs = 20_000): Promise<Outcome> {
  return new Promise((resolve) => {
    const child = spawn(binary.path, ['-hide_banner', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (error) => (stderr += String(error)));
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      children.delete(child);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('Timed out waiting for a condition.');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('RTSP camera test double', { timeout: 60_000 }, () => {
  let media: MediaBinaries;
  let clip: TestClip;
  let camera: RtspCameraServer;
  let dir: string;

  // The RTSP socket timeout: in ffmpeg 4, -timeout on RTSP means "listen" and -stimeout is the
  // socket timeout; ffmpeg 5 renamed -stimeout to -timeout.
  const socketTimeout = (binary: MediaBinary) =>
    binary.major >= 5 ? ['-timeout', '5000000'] : ['-stimeout', '5000000'];

  const probe = async (url: string, transport: 'tcp' | 'udp' = 'tcp') => {
    const { ffprobe } = media;
    const outcome = await run(ffprobe, [
      '-v', 'error', '-rtsp_transport', transport, ...socketTimeout(ffprobe),
      '-select_streams', 'v', '-show_entries', 'stream=codec_name,width,height', '-of', 'json', url,
    ]);
    expect(outcome.code, outcome.stderr).toBe(0);
    const { streams } = JSON.parse(outcome.stdout) as { streams: { codec_name: string; width: number; height: number }[] };
    if (!streams[0]) throw new Error(`ffprobe found no video stream at ${url}`);
    return streams[0];
  };

  // MP4 rather than MPEG-TS: the npm ffprobe 6 build segfaults on every MPEG-TS input.
  const record = (url: string, transport: 'tcp' | 'udp', file: string) =>
    run(media.ffmpeg, [
      '-v', 'error', '-rtsp_transport', transport, ...socketTimeout(media.ffmpeg),
      '-i', url, '-t', '4', '-c', 'copy', '-y', file,
    ]);

  const expectPlayableRecording = async (file: string) => {
    const probed = await run(media.ffprobe, [
      '-v', 'error', '-show_entries', 'format=duration:stream=codec_name', '-of', 'json', file,
    ]);
    expect(probed.code, probed.stderr).toBe(0);
    const info = JSON.parse(probed.stdout) as { streams: { codec_name: string }[]; format: { duration: string } };
    expect(info.streams[0]?.codec_name).toBe('h264');
    const duration = Number(info.format.duration);
    expect(duration).toBeGreaterThan(2);
    expect(duration).toBeLessThan(6);
    const decoded = await run(media.ffmpeg, ['-v', 'error', '-i', file, '-f', 'null', '-']);
    expect(decoded.code).toBe(0);
    expect(decoded.stderr.trim()).toBe('');
  };

  beforeAll(async () => {
    [media, clip] = await Promise.all([resolveMediaBinaries(), ensureTestClip()]);
    camera = await startRtspCameraServer({ clip: clip.path, fps: clip.fps });
    dir = await mkdtemp(join(tmpdir(), 'vss-rtsp-camera-'));
  });

  afterEach(() => {
    for (const child of children) child.kill('SIGKILL');
    children.clear();
  });

  afterAll(async () => {
    await camera?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('is probed over interleaved TCP as the clip: H.264 at its size', async () => {
    expect(await probe(camera.url('cam1'))).toEqual({ codec_name: 'h264', width: clip.width, height: clip.height });
  });

  it.each(['tcp', 'udp'] as const)('records over %s with stream copy into a file that decodes', async (transport) => {
    const file = join(dir, `${transport}.mp4`);
    const recorded = await record(camera.url('cam1'), transport, file);
    expect(recorded.code, recorded.stderr).toBe(0);
    await expectPlayableRecording(file);
  });

  it('serves two cameras at once', async () => {
    const files = [join(dir, 'cam1.mp4'), join(dir, 'cam2.mp4')];
    const outcomes = await Promise.all([
      record(camera.url('cam1'), 'tcp', files[0]!),
      record(camera.url('/cam2'), 'tcp', files[1]!),
    ]);
    for (const outcome of outcomes) expect(outcome.code, outcome.stderr).toBe(0);
    for (const file of files) await expectPlayableRecording(file);
  });

  it('answers raw RTSP, streams interleaved RTP and forgets a client that vanishes', async () => {
    const socket = connect(camera.port, '127.0.0.1');
    let received = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => (received = Buffer.concat([received, chunk])));
    try {
      const url = camera.url('raw');
      socket.write(`OPTIONS ${url} RTSP/1.0\r\nCSeq: 7\r\n\r\n`);
      await waitFor(() => received.includes('\r\n\r\n'));
      expect(received.toString()).toMatch(/^RTSP\/1\.0 200 OK\r\nCSeq: 7\r\n[^]*Public: [^\r]*DESCRIBE/);
      received = Buffer.alloc(0);
      const transport = 'Transport: RTP/AVP/TCP;unicast;interleaved=0-1';
      socket.write(`SETUP ${url}/trackID=0 RTSP/1.0\r\nCSeq: 8\r\n${transport}\r\n\r\n`);
      await waitFor(() => received.includes('\r\n\r\n'));
      const session = /Session: (\w+);timeout=\d+/.exec(received.toString())?.[1];
      expect(session).toBeDefined();
      received = Buffer.alloc(0);
      socket.write(`PLAY ${url}/trackID=0 RTSP/1.0\r\nCSeq: 9\r\nSession: ${session}\r\n\r\n`);
      await waitFor(() => received.length > 20_000);
      const head = received.indexOf('\r\n\r\n') + 4;
      expect(received.subarray(0, head).toString()).toMatch(/RTP-Info: url=[^;]+;seq=\d+;rtptime=\d+/);
      // The SR comes first on the RTCP channel, then RTP (version 2, payload type 96) on channel 0.
      const packets: { channel: number; packet: Buffer }[] = [];
      for (let at = head; at + 4 <= received.length && received[at] === 0x24; ) {
        const length = received.readUInt16BE(at + 2);
        packets.push({ channel: received[at + 1]!, packet: received.subarray(at + 4, at + 4 + length) });
        at += 4 + length;
      }
      expect(packets[0]).toMatchObject({ channel: 1 });
      expect(packets[0]!.packet[1]).toBe(200);
      const rtp = packets.filter((p) => p.channel === 0).map((p) => p.packet);
      expect(rtp.every((packet) => packet[0] === 0x80 && (packet[1]! & 0x7f) === 96)).toBe(true);
      expect(rtp.some((packet) => (packet[12]! & 0x1f) === 28)).toBe(true);
      expect(camera.sessions()).toBe(1);
    } finally {
      socket.destroy();
    }
    await waitFor(() => camera.sessions() === 0);
    expect((await probe(camera.url('raw'))).codec_name).toBe('h264');
  });

  it('asks for Digest credentials and refuses a wrong password', async () => {
    const secured = await startRtspCameraServer({ clip: clip.path, fps: clip.fps, login: 'admin', password: 's3cret' });
    try {
      expect((await probe(secured.url('cam1', true))).codec_name).toBe('h264');
      for (const url of [secured.url('cam1').replace('rtsp://', 'rtsp://admin:wrong@'), secured.url('cam1')]) {
        const refused = await run(media.ffmpeg, [
          '-v', 'error', '-rtsp_transport', 'tcp', ...socketTimeout(media.ffmpeg),
          '-i', url, '-t', '1', '-f', 'null', '-',
        ]);
        expect(refused.code).not.toBe(0);
        expect(refused.stderr).toMatch(/401|Unauthorized/);
      }
    } finally {
      await secured.close();
    }
  });

  it('goes away on stop(), ending a reader, and comes back on the same port on start()', async () => {
    const flaky = await startRtspCameraServer({ clip: clip.path, fps: clip.fps });
    try {
      const { port } = flaky;
      const reading = run(media.ffmpeg, [
        '-v', 'error', '-rtsp_transport', 'tcp', ...socketTimeout(media.ffmpeg),
        '-i', flaky.url('cam1'), '-t', '30', '-f', 'null', '-',
      ], 30_000);
      await waitFor(() => flaky.sessions() === 1);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      await flaky.stop();
      expect(flaky.sessions()).toBe(0);
      const ended = await reading;
      // It ended on its own (at EOF or on its socket timeout), not by our kill.
      expect(ended.signal).toBeNull();
      await flaky.start();
      expect(flaky.port).toBe(port);
      expect((await probe(flaky.url('cam1'))).codec_name).toBe('h264');
    } finally {
      await flaky.close();
    }
    await expect(flaky.start()).rejects.toThrow(/closed/);
  });
});
