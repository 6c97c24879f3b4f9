// The simulated cameras of the stream benchmark, in a process of their own so that their CPU is
// not counted with the server's. Every RTSP path is a separate camera looping the clip.
//
//   node bench/streams/camera.mjs --clip <file.h264> --fps 25 [--max-seconds 900]
//
// Prints one JSON line {"port", "pid"} once listening. Answers "sessions" on stdin with
// {"sessions": n}. Exits when stdin closes (its parent is gone), on SIGTERM/SIGINT, or after
// --max-seconds whatever happens, so it can never outlive a benchmark run.
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { startRtspCameraServer } from '../../packages/core/dist/testing/index.js';

const { values } = parseArgs({
  options: {
    clip: { type: 'string' },
    fps: { type: 'string', default: '25' },
    'max-seconds': { type: 'string', default: '900' },
  },
});
if (!values.clip) {
  console.error('camera.mjs: --clip is required');
  process.exit(2);
}

const camera = await startRtspCameraServer({ clip: values.clip, fps: Number(values.fps) });
let closing = false;
const close = async (code) => {
  if (closing) return;
  closing = true;
  // A stuck close must not keep the process alive.
  setTimeout(() => process.exit(code), 3_000).unref();
  await camera.close().catch(() => {});
  process.exit(code);
};

setTimeout(() => {
  console.error('camera.mjs: --max-seconds reached, exiting');
  void close(3);
}, Number(values['max-seconds']) * 1000).unref();
process.once('SIGTERM', () => void close(0));
process.once('SIGINT', () => void close(0));

const input = createInterface({ input: process.stdin });
input.on('line', (line) => {
  if (line.trim() === 'sessions') process.stdout.write(`${JSON.stringify({ sessions: camera.sessions() })}\n`);
});
input.on('close', () => void close(0));
// The interface alone does not hold the event loop when stdin is a pipe that is already gone.
process.stdin.resume();

process.stdout.write(`${JSON.stringify({ port: camera.port, pid: process.pid })}\n`);
