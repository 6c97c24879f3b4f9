import { createHash, randomBytes, randomInt } from 'node:crypto';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { readFile } from 'node:fs/promises';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { ensureTestClip } from './test-clip';

/**
 * A fake IP camera on loopback: RTSP 1.0 with RTP/H.264 (RFC 6184), interleaved over TCP or over
 * UDP. Every path is its own camera, looping the clip forever in real time.
 */
export interface RtspCameraServer {
  port: number;
  /** `rtsp://127.0.0.1:port/path`, with `login:password@` when `credentials` is true. */
  url(path: string, credentials?: boolean): string;
  /** A camera outage: closes the listener and drops every connection and session. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
  /** Sessions set up and not yet torn down. */
  sessions(): number;
  /** Stops for good. */
  close(): Promise<void>;
}

export interface RtspCameraOptions {
  /** An H.264 Annex-B file; the default is `ensureTestClip()`. */
  clip?: string;
  /** The clip's frame rate, since a raw stream does not carry one reliably; 25 unless the default clip. */
  fps?: number;
  port?: number;
  /** When set, every request needs HTTP Digest authentication. */
  login?: string;
  password?: string;
}

interface Frame {
  nals: Buffer[];
  key: boolean;
}

interface Clip {
  frames: Frame[];
  fps: number;
  sps: Buffer;
  pps: Buffer;
}

type Transport =
  | { kind: 'tcp'; channel: number }
  | { kind: 'udp'; rtpPort: number; rtcpPort: number };

interface Session {
  id: string;
  connection: Connection;
  camera: Camera;
  controlUrl: string;
  transport: Transport;
  ssrc: number;
  sequence: number;
  rtpBase: number;
  ptsBase: number | undefined;
  waitingForKey: boolean;
  packets: number;
  octets: number;
  lastReport: number;
}

interface Connection {
  socket: Socket;
  nonce: string;
  sessions: Map<string, Session>;
}

const REALM = 'VSS test camera';
const PAYLOAD_TYPE = 96;
const MAX_PAYLOAD = 1400;
const REPORT_INTERVAL_MS = 1000;
// A client that stops reading must not make the server buffer without bound; a real camera drops frames.
const MAX_TCP_BACKLOG = 4 * 1024 * 1024;
const NTP_EPOCH_OFFSET = 2_208_988_800;
const TWO_32 = 0x1_0000_0000;
const METHODS = 'OPTIONS, DESCRIBE, SETUP, PLAY, TEARDOWN, GET_PARAMETER, SET_PARAMETER';

const md5 = (value: string) => createHash('md5').update(value, 'utf8').digest('hex');

function parseClip(data: Buffer, fps: number): Clip {
  const nals: Buffer[] = [];
  const startCode = Buffer.from([0, 0, 1]);
  let start = data.indexOf(startCode);
  while (start >= 0) {
    const next = data.indexOf(startCode, start + 3);
    let end = next < 0 ? data.length : next;
    // A 4-byte start code and trailing_zero_8bits are not part of the NAL unit before them.
    while (end > start + 3 && data[end - 1] === 0) end--;
    if (end > start + 3) nals.push(data.subarray(start + 3, end));
    start = next;
  }
  const frames: Frame[] = [];
  let frame: Frame | undefined;
  let hasSlice = false;
  for (const nal of nals) {
    const type = nal[0]! & 0x1f;
    const slice = type >= 1 && type <= 5;
    // Access-unit boundaries per H.264 7.4.1.2.3: a slice with first_mb_in_slice 0 (its ue(v) is a
    // single 1 bit), or an AUD/SEI/SPS/PPS/prefix NAL, after the previous picture's slices.
    const boundary = slice ? (nal[1]! & 0x80) !== 0 : (type >= 6 && type <= 9) || (type >= 14 && type <= 18);
    if (!frame || (hasSlice && boundary)) {
      frame = { nals: [], key: false };
      frames.push(frame);
      hasSlice = false;
    }
    frame.nals.push(nal);
    frame.key ||= type === 5;
    hasSlice ||= slice;
  }
  const sps = nals.find((nal) => (nal[0]! & 0x1f) === 7);
  const pps = nals.find((nal) => (nal[0]! & 0x1f) === 8);
  if (!sps || !pps || !frames.some((f) => f.key)) {
    throw new Error('The clip is not H.264 Annex-B with SPS, PPS and an IDR.');
  }
  // Decoders joining at any IDR need the parameter sets in band, even from a clip that has them only once.
  for (const { nals: units, key } of frames) {
    if (key && !units.some((nal) => (nal[0]! & 0x1f) === 7)) units.unshift(sps, pps);
  }
  return { frames, fps, sps, pps };
}

/** One path's frame timeline: paced by wall clock while anyone watches, monotonic across loops and pauses. */
class Camera {
  readonly viewers = new Set<Session>();
  private index = 0;
  private origin = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly frameMs: number;

  constructor(
    private readonly clip: Clip,
    private readonly send: (session: Session, frame: Frame, pts: number, wallMs: number) => void,
  ) {
    this.frameMs = 1000 / clip.fps;
  }

  watch(session: Session): void {
    if (this.viewers.has(session)) return;
    this.viewers.add(session);
    if (this.viewers.size > 1) return;
    // Skipping ahead to a keyframe lets the first viewer start at once; later ones wait for the
    // next GOP, as with a real camera.
    while (!this.clip.frames[this.index % this.clip.frames.length]!.key) this.index++;
    this.origin = performance.now() - this.index * this.frameMs;
    this.tick();
  }

  unwatch(session: Session): void {
    this.viewers.delete(session);
    if (this.viewers.size === 0) clearTimeout(this.timer);
  }

  private readonly tick = (): void => {
    const now = performance.now();
    // Frames that fell due while the event loop was busy go out together rather than being lost.
    while (this.viewers.size > 0 && this.origin + this.index * this.frameMs <= now) {
      const frame = this.clip.frames[this.index % this.clip.frames.length]!;
      const pts = Math.round((this.index * 90_000) / this.clip.fps);
      const wallMs = performance.timeOrigin + this.origin + this.index * this.frameMs;
      for (const viewer of this.viewers) this.send(viewer, frame, pts, wallMs);
      this.index++;
    }
    if (this.viewers.size === 0) return;
    this.timer = setTimeout(this.tick, this.origin + this.index * this.frameMs - performance.now());
  };
}

function parseHeaders(lines: string[]): Map<string, string> {
  const headers = new Map<string, string>();
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return headers;
}

function parseTransport(header: string): Transport | undefined {
  for (const option of header.split(',')) {
    const [profile = '', ...parameters] = option.trim().split(';');
    const parameter = (name: string) =>
      parameters.find((p) => p.startsWith(`${name}=`))?.slice(name.length + 1).split('-').map(Number);
    if (parameters.includes('multicast')) continue;
    if (profile === 'RTP/AVP/TCP') {
      const [channel = 0] = parameter('interleaved') ?? [];
      if (Number.isInteger(channel) && channel >= 0 && channel < 255) return { kind: 'tcp', channel };
    } else if (profile === 'RTP/AVP' || profile === 'RTP/AVP/UDP') {
      const [rtpPort, rtcpPort = (rtpPort ?? 0) + 1] = parameter('client_port') ?? [];
      if (rtpPort && rtpPort < 65535 && rtcpPort > 0 && rtcpPort <= 65535) return { kind: 'udp', rtpPort, rtcpPort };
    }
  }
  return undefined;
}

/** Binds an RTP socket and an RTCP socket on the next port up, which is where clients send RTCP. */
async function bindUdpPair(): Promise<[UdpSocket, UdpSocket]> {
  const bind = (port: number) =>
    new Promise<UdpSocket>((resolve, reject) => {
      const socket = createSocket('udp4');
      socket.once('error', (error) => {
        socket.close();
        reject(error);
      });
      socket.bind(port, '127.0.0.1', () => {
        socket.removeAllListeners('error');
        // Receiver reports and NAT punch packets arrive here; ICMP errors must not crash the process.
        socket.on('error', () => {});
        resolve(socket);
      });
    });
  for (let attempt = 0; ; attempt++) {
    const rtp = await bind(0);
    const rtcp = await bind(rtp.address().port + 1).catch((error: unknown) => {
      rtp.close();
      if (attempt >= 20) throw error;
      return undefined;
    });
    if (rtcp) return [rtp, rtcp];
  }
}

export async function startRtspCameraServer(options: RtspCameraOptions = {}): Promise<RtspCameraServer> {
  let clipPath = options.clip;
  let fps = options.fps ?? 25;
  if (!clipPath) {
    const clip = await ensureTestClip(options.fps ? { fps: options.fps } : {});
    clipPath = clip.path;
    fps = clip.fps;
  }
  const clip = parseClip(await readFile(clipPath), fps);
  const { login, password = '' } = options;
  const sprop = `${clip.sps.toString('base64')},${clip.pps.toString('base64')}`;
  const profileLevelId = clip.sps.subarray(1, 4).toString('hex');
  const cameras = new Map<string, Camera>();
  const connections = new Set<Connection>();
  let udp: [UdpSocket, UdpSocket] | undefined;
  let closed = false;

  const rtpPacket = (session: Session, timestamp: number, marker: boolean, ...payload: Buffer[]) => {
    const header = Buffer.alloc(12);
    header[0] = 0x80;
    header[1] = (marker ? 0x80 : 0) | PAYLOAD_TYPE;
    header.writeUInt16BE(session.sequence, 2);
    header.writeUInt32BE(timestamp, 4);
    header.writeUInt32BE(session.ssrc, 8);
    session.sequence = (session.sequence + 1) & 0xffff;
    session.packets++;
    for (const part of payload) session.octets += part.length;
    return Buffer.concat([header, ...payload]);
  };

  const senderReport = (session: Session, timestamp: number, wallMs: number) => {
    const report = Buffer.alloc(28);
    report[0] = 0x80;
    report[1] = 200;
    report.writeUInt16BE(6, 2);
    report.writeUInt32BE(session.ssrc, 4);
    const seconds = Math.floor(wallMs / 1000);
    report.writeUInt32BE(seconds + NTP_EPOCH_OFFSET, 8);
    report.writeUInt32BE(Math.floor(((wallMs - seconds * 1000) / 1000) * TWO_32), 12);
    report.writeUInt32BE(timestamp, 16);
    report.writeUInt32BE(session.packets >>> 0, 20);
    report.writeUInt32BE(session.octets >>> 0, 24);
    return report;
  };

  const sendFrame = (session: Session, frame: Frame, pts: number, wallMs: number) => {
    const { socket } = session.connection;
    if (session.waitingForKey && !frame.key) return;
    session.waitingForKey = false;
    if (session.transport.kind === 'tcp' && socket.writableLength > MAX_TCP_BACKLOG) {
      session.waitingForKey = true;
      return;
    }
    session.ptsBase ??= pts;
    const timestamp = (session.rtpBase + pts - session.ptsBase) % TWO_32;
    const rtcp: Buffer[] = [];
    if (wallMs - session.lastReport >= REPORT_INTERVAL_MS) {
      session.lastReport = wallMs;
      rtcp.push(senderReport(session, timestamp, wallMs));
    }
    const rtp: Buffer[] = [];
    frame.nals.forEach((nal, n) => {
      const last = n === frame.nals.length - 1;
      if (nal.length <= MAX_PAYLOAD) {
        rtp.push(rtpPacket(session, timestamp, last, nal));
        return;
      }
      // FU-A (RFC 6184 5.8): the NAL header's F/NRI bits go in the indicator, its type in the FU header.
      const indicator = Buffer.of((nal[0]! & 0xe0) | 28);
      for (let offset = 1; offset < nal.length; offset += MAX_PAYLOAD - 2) {
        const end = Math.min(offset + MAX_PAYLOAD - 2, nal.length);
        const fuHeader = Buffer.of((offset === 1 ? 0x80 : 0) | (end === nal.length ? 0x40 : 0) | (nal[0]! & 0x1f));
        const marker = last && end === nal.length;
        rtp.push(rtpPacket(session, timestamp, marker, indicator, fuHeader, nal.subarray(offset, end)));
      }
    });
    const { transport } = session;
    if (transport.kind === 'tcp') {
      const interleave = (channel: number, packet: Buffer) => {
        const prefix = Buffer.of(0x24, channel, packet.length >> 8, packet.length & 0xff);
        return [prefix, packet];
      };
      // One write per frame keeps the syscall count, and so the CPU, low.
      socket.write(
        Buffer.concat([
          ...rtcp.flatMap((packet) => interleave(transport.channel + 1, packet)),
          ...rtp.flatMap((packet) => interleave(transport.channel, packet)),
        ]),
      );
    } else if (udp) {
      const address = socket.remoteAddress ?? '127.0.0.1';
      for (const packet of rtcp) udp[1].send(packet, transport.rtcpPort, address, () => {});
      for (const packet of rtp) udp[0].send(packet, transport.rtpPort, address, () => {});
    }
  };

  const endSession = (session: Session) => {
    session.camera.unwatch(session);
    session.connection.sessions.delete(session.id);
  };

  const authorized = (connection: Connection, method: string, header: string | undefined) => {
    if (login === undefined) return true;
    if (!header?.startsWith('Digest ')) return false;
    const params = new Map(
      [...header.matchAll(/(\w+)=(?:"([^"]*)"|([^,\s]*))/g)].map((m) => [m[1]!.toLowerCase(), m[2] ?? m[3] ?? '']),
    );
    const { username, realm, nonce, uri, response, qop, nc, cnonce } = Object.fromEntries(params);
    if (username !== login || realm !== REALM || nonce !== connection.nonce || !uri) return false;
    const ha1 = md5(`${login}:${REALM}:${password}`);
    const ha2 = md5(`${method}:${uri}`);
    const expected = qop ? md5(`${ha1}:${nonce}:${nc}:${cnonce}:${qop}:${ha2}`) : md5(`${ha1}:${nonce}:${ha2}`);
    return response === expected;
  };

  const cameraFor = (uri: string) => {
    // Control URLs are the base plus "/trackID=0"; the query, if any, does not select the camera.
    const base = uri.replace(/\/trackID=0$/, '');
    let path: string;
    try {
      path = new URL(base).pathname.replace(/\/+$/, '') || '/';
    } catch {
      path = '/';
    }
    let camera = cameras.get(path);
    if (!camera) {
      camera = new Camera(clip, sendFrame);
      cameras.set(path, camera);
    }
    return camera;
  };

  const handle = (connection: Connection, method: string, uri: string, headers: Map<string, string>) => {
    const { socket } = connection;
    const reply = (status: string, extra: Record<string, string | number> = {}, body = '') => {
      let text = `RTSP/1.0 ${status}\r\nCSeq: ${headers.get('cseq') ?? 0}\r\nServer: VSS test camera\r\n`;
      for (const [name, value] of Object.entries(extra)) text += `${name}: ${value}\r\n`;
      if (body) text += `Content-Length: ${Buffer.byteLength(body)}\r\n`;
      socket.write(`${text}\r\n${body}`);
    };
    if (!authorized(connection, method, headers.get('authorization'))) {
      reply('401 Unauthorized', { 'WWW-Authenticate': `Digest realm="${REALM}", nonce="${connection.nonce}"` });
      return;
    }
    const sessionId = headers.get('session')?.split(';')[0]?.trim();
    const session = sessionId === undefined ? undefined : connection.sessions.get(sessionId);
    if (sessionId !== undefined && !session) {
      reply('454 Session Not Found');
      return;
    }
    const sessionHeader = (s: Session) => ({ Session: `${s.id};timeout=60` });
    switch (method) {
      case 'OPTIONS':
        reply('200 OK', { Public: METHODS });
        return;
      case 'DESCRIBE': {
        const sdp = [
          'v=0',
          `o=- ${randomInt(1, 2 ** 31)} 1 IN IP4 127.0.0.1`,
          's=VSS test camera',
          'c=IN IP4 0.0.0.0',
          't=0 0',
          'a=control:*',
          `m=video 0 RTP/AVP ${PAYLOAD_TYPE}`,
          `a=rtpmap:${PAYLOAD_TYPE} H264/90000`,
          `a=fmtp:${PAYLOAD_TYPE} packetization-mode=1;profile-level-id=${profileLevelId};` +
            `sprop-parameter-sets=${sprop}`,
          `a=framerate:${clip.fps}`,
          'a=control:trackID=0',
          '',
        ].join('\r\n');
        const contentBase = uri.endsWith('/') ? uri : `${uri}/`;
        reply('200 OK', { 'Content-Type': 'application/sdp', 'Content-Base': contentBase }, sdp);
        return;
      }
      case 'SETUP': {
        const transport = parseTransport(headers.get('transport') ?? '');
        if (!transport || (transport.kind === 'udp' && !udp)) {
          reply('461 Unsupported Transport');
          return;
        }
        const current =
          session ??
          ({
            id: randomBytes(8).toString('hex'),
            connection,
            camera: cameraFor(uri),
            controlUrl: uri,
            transport,
            ssrc: randomBytes(4).readUInt32BE(),
            sequence: randomInt(0x10000),
            rtpBase: randomBytes(4).readUInt32BE(),
            ptsBase: undefined,
            waitingForKey: true,
            packets: 0,
            octets: 0,
            lastReport: 0,
          } satisfies Session);
        current.transport = transport;
        connection.sessions.set(current.id, current);
        const ssrc = current.ssrc.toString(16).padStart(8, '0').toUpperCase();
        reply('200 OK', {
          Transport:
            transport.kind === 'tcp'
              ? `RTP/AVP/TCP;unicast;interleaved=${transport.channel}-${transport.channel + 1};ssrc=${ssrc}`
              : `RTP/AVP;unicast;client_port=${transport.rtpPort}-${transport.rtcpPort};` +
                `server_port=${udp![0].address().port}-${udp![1].address().port};ssrc=${ssrc}`,
          ...sessionHeader(current),
        });
        return;
      }
      case 'PLAY':
        if (!session) {
          reply('454 Session Not Found');
          return;
        }
        // RTP-Info must name the control URL the client used in SETUP, which is how ffmpeg matches it to the stream.
        reply('200 OK', {
          Range: 'npt=0.000-',
          'RTP-Info': `url=${session.controlUrl};seq=${session.sequence};rtptime=${session.rtpBase}`,
          ...sessionHeader(session),
        });
        session.camera.watch(session);
        return;
      case 'TEARDOWN':
        if (session) endSession(session);
        reply('200 OK');
        return;
      case 'GET_PARAMETER':
      case 'SET_PARAMETER':
        reply('200 OK', session ? sessionHeader(session) : {});
        return;
      default:
        reply('501 Not Implemented');
    }
  };

  const server = createServer((socket) => {
    const connection: Connection = { socket, nonce: randomBytes(16).toString('hex'), sessions: new Map() };
    connections.add(connection);
    let buffer: Buffer = Buffer.alloc(0);
    socket.setNoDelay(true);
    socket.on('error', () => socket.destroy());
    // Sessions live as long as their connection, even over UDP, so a vanished client leaves no timer behind.
    socket.on('close', () => {
      connections.delete(connection);
      for (const session of connection.sessions.values()) endSession(session);
    });
    socket.on('data', (chunk: Buffer) => {
      buffer = buffer.length ? Buffer.concat([buffer, chunk]) : chunk;
      while (buffer.length > 0 && !socket.destroyed) {
        if (buffer[0] === 0x0d || buffer[0] === 0x0a) {
          buffer = buffer.subarray(1);
        } else if (buffer[0] === 0x24) {
          // Interleaved RTCP receiver reports from the client: framed like ours, and ignored.
          if (buffer.length < 4 || buffer.length < 4 + buffer.readUInt16BE(2)) return;
          buffer = buffer.subarray(4 + buffer.readUInt16BE(2));
        } else {
          const end = buffer.indexOf('\r\n\r\n');
          if (end < 0) {
            if (buffer.length > 16_384) socket.destroy();
            return;
          }
          const [requestLine = '', ...lines] = buffer.subarray(0, end).toString('latin1').split('\r\n');
          const headers = parseHeaders(lines);
          const bodyLength = Number(headers.get('content-length') ?? 0);
          if (!Number.isSafeInteger(bodyLength) || bodyLength < 0 || bodyLength > 65_536) {
            socket.destroy();
            return;
          }
          if (buffer.length < end + 4 + bodyLength) return;
          buffer = buffer.subarray(end + 4 + bodyLength);
          const [method = '', uri = '', version = ''] = requestLine.split(' ');
          if (!version.startsWith('RTSP/')) {
            socket.end('RTSP/1.0 400 Bad Request\r\n\r\n');
            return;
          }
          handle(connection, method, uri, headers);
        }
      }
    });
  });
  // Accept failures (EMFILE and the like) surface here; a test double must not take the test run down with them.
  server.on('error', () => {});

  let port = options.port ?? 0;
  const camera: RtspCameraServer = {
    get port() {
      return port;
    },
    url(path, credentials = false) {
      const auth =
        credentials && login !== undefined ? `${encodeURIComponent(login)}:${encodeURIComponent(password)}@` : '';
      return `rtsp://${auth}127.0.0.1:${port}/${path.replace(/^\/+/, '')}`;
    },
    async start() {
      if (closed) throw new Error('The RTSP camera server is closed.');
      if (server.listening) return;
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => {
          server.off('error', reject);
          resolve();
        });
      });
      port = (server.address() as AddressInfo).port;
      udp = await bindUdpPair();
    },
    async stop() {
      for (const connection of connections) {
        for (const session of connection.sessions.values()) endSession(session);
        connection.socket.destroy();
      }
      const sockets = udp ?? [];
      udp = undefined;
      await Promise.all([
        new Promise<void>((resolve) => server.close(() => resolve())),
        ...sockets.map((socket) => new Promise<void>((resolve) => socket.close(() => resolve()))),
      ]);
    },
    sessions() {
      let count = 0;
      for (const connection of connections) count += connection.sessions.size;
      return count;
    },
    async close() {
      closed = true;
      await camera.stop();
    },
  };
  await camera.start();
  return camera;
}
