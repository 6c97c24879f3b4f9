import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { streamHugeBody } from './digest-server';

/**
 * How the fake answers every request: 'ok' serves it; 'refuse' answers HTTP 400 with a SOAP fault
 * ter:OperationProhibited; 'hang' never answers; 'garbage' answers 200 with text that is not XML;
 * 'huge' streams a 200 body of 2 MiB; 'fail-status' answers 200 with a SOAP envelope holding a fault
 * (env:Receiver / ter:Action), as some firmware does instead of an error status.
 */
export type FakeOnvifBehaviour = 'ok' | 'refuse' | 'hang' | 'garbage' | 'huge' | 'fail-status';

export interface FakeOnvifProfile {
  token: string;
  name: string;
  /** What GetStreamUri answers for this profile, as the device would (e.g. with a 0.0.0.0 host). */
  uri: string;
}

export interface FakeOnvifDevice {
  host: string;
  port: number;
  /** The Media service path the device advertises, under an address of its own that is not reachable. */
  mediaPath: string;
  /** Reboots the device accepted: authenticated SystemReboot requests answered under 'ok'. */
  rebootCount(): number;
  /** The operations received, authenticated or not, in order (e.g. "GetProfiles"). */
  operations(): string[];
  setBehaviour(behaviour: FakeOnvifBehaviour): void;
  /** Stops the server and drops every connection, hung ones included. */
  close(): Promise<void>;
}

const DEVICE_PATH = '/onvif/device_service';
const MEDIA_PATH = '/onvif/Media';
/** How far a UsernameToken's Created may be from the device's clock, as devices allow. */
const CLOCK_TOLERANCE_MS = 60_000;

const DEFAULT_PROFILES: FakeOnvifProfile[] = [
  { token: 'Profile_1', name: 'mainStream', uri: 'rtsp://0.0.0.0:554/Streaming/Channels/101?transportmode=unicast&profile=Profile_1' },
  { token: 'Profile_2', name: 'subStream', uri: 'rtsp://0.0.0.0:554/Streaming/Channels/102?transportmode=unicast&profile=Profile_2' },
];

/** Operations a device serves to anyone, so that clients can learn its clock before signing. */
const OPEN_OPERATIONS = new Set(['GetSystemDateAndTime']);

const escape = (value: string) =>
  value.replace(/[&<>"]/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[char] ?? char);

const envelope = (body: string) =>
  '<?xml version="1.0" encoding="UTF-8"?><env:Envelope xmlns:env="http://www.w3.org/2003/05/soap-envelope" ' +
  'xmlns:ter="http://www.onvif.org/ver10/error" xmlns:tt="http://www.onvif.org/ver10/schema" ' +
  'xmlns:tds="http://www.onvif.org/ver10/device/wsdl" xmlns:trt="http://www.onvif.org/ver10/media/wsdl">' +
  `<env:Body>${body}</env:Body></env:Envelope>`;

const fault = (code: 'Sender' | 'Receiver', subcode: string, reason: string) =>
  envelope(
    `<env:Fault><env:Code><env:Value>env:${code}</env:Value><env:Subcode><env:Value>ter:${subcode}</env:Value>` +
      `</env:Subcode></env:Code><env:Reason><env:Text xml:lang="en">${reason}</env:Text></env:Reason></env:Fault>`,
  );

/**
 * The text of the first element with this local name. Written apart from the client's own XML helpers
 * on purpose, so that a bug there is not mirrored here.
 */
function text(xml: string, name: string): string | undefined {
  const match = new RegExp(`<(?:\\w+:)?${name}(?:\\s[^>]*)?>([^<]*)</(?:\\w+:)?${name}>`).exec(xml);
  return match?.[1]?.trim();
}

/**
 * An ONVIF device on 127.0.0.1: the Device service at /onvif/device_service (GetSystemDateAndTime,
 * GetCapabilities, SystemReboot) and the Media service at /onvif/Media (GetProfiles, GetStreamUri).
 * Everything but GetSystemDateAndTime needs a WS-Security UsernameToken with a PasswordDigest made
 * from its own password and a Created within a minute of its clock, which runs `clockOffsetMs` off
 * the real time; otherwise it answers HTTP 400 with a ter:NotAuthorized fault, as devices do.
 */
export async function startFakeOnvifDevice(options: {
  login: string;
  password: string;
  profiles?: FakeOnvifProfile[];
  behaviour?: FakeOnvifBehaviour;
  clockOffsetMs?: number;
}): Promise<FakeOnvifDevice> {
  let behaviour = options.behaviour ?? 'ok';
  let reboots = 0;
  const seen: string[] = [];
  const profiles = options.profiles ?? DEFAULT_PROFILES;
  const clock = () => new Date(Date.now() + (options.clockOffsetMs ?? 0));

  const answer = (res: ServerResponse, status: number, body: string, contentType = 'application/soap+xml; charset=utf-8') => {
    res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  };

  const authenticated = (xml: string): boolean => {
    const [username, password, nonce, created] = ['Username', 'Password', 'Nonce', 'Created'].map((name) => text(xml, name));
    if (username !== options.login || password === undefined || nonce === undefined || created === undefined) return false;
    if (!/#PasswordDigest"/.test(xml)) return false;
    const createdAt = Date.parse(created);
    if (Number.isNaN(createdAt) || Math.abs(createdAt - clock().getTime()) > CLOCK_TOLERANCE_MS) return false;
    const expected = createHash('sha1')
      .update(Buffer.from(nonce, 'base64'))
      .update(created)
      .update(options.password)
      .digest('base64');
    return password === expected;
  };

  const dateAndTime = () => {
    const now = clock();
    return (
      '<tds:GetSystemDateAndTimeResponse><tds:SystemDateAndTime><tt:DateTimeType>Manual</tt:DateTimeType>' +
      '<tt:DaylightSavings>false</tt:DaylightSavings><tt:UTCDateTime>' +
      `<tt:Time><tt:Hour>${now.getUTCHours()}</tt:Hour><tt:Minute>${now.getUTCMinutes()}</tt:Minute><tt:Second>${now.getUTCSeconds()}</tt:Second></tt:Time>` +
      `<tt:Date><tt:Year>${now.getUTCFullYear()}</tt:Year><tt:Month>${now.getUTCMonth() + 1}</tt:Month><tt:Day>${now.getUTCDate()}</tt:Day></tt:Date>` +
      '</tt:UTCDateTime></tds:SystemDateAndTime></tds:GetSystemDateAndTimeResponse>'
    );
  };

  // Answers of a real camera also list the configurations of each profile; one is enough to make
  // sure the client does not take their tokens for profile tokens.
  const profilesAnswer = () =>
    '<trt:GetProfilesResponse>' +
    profiles
      .map(
        (profile) =>
          `<trt:Profiles fixed="true" token="${escape(profile.token)}"><tt:Name>${escape(profile.name)}</tt:Name>` +
          `<tt:VideoSourceConfiguration token="VideoSourceToken"><tt:Name>VideoSource</tt:Name></tt:VideoSourceConfiguration>` +
          '</trt:Profiles>',
      )
      .join('') +
    '</trt:GetProfilesResponse>';

  const streamUri = (xml: string) => {
    const profile = profiles.find((candidate) => candidate.token === text(xml, 'ProfileToken'));
    const setup = /RTP-Unicast/.test(text(xml, 'Stream') ?? '') && text(xml, 'Protocol') === 'RTSP';
    if (!profile) return fault('Sender', 'InvalidArgVal', 'No such profile');
    if (!setup) return fault('Sender', 'InvalidArgVal', 'Unsupported stream setup');
    return (
      `<trt:GetStreamUriResponse><trt:MediaUri><tt:Uri>${escape(profile.uri)}</tt:Uri>` +
      '<tt:InvalidAfterConnect>false</tt:InvalidAfterConnect><tt:InvalidAfterReboot>false</tt:InvalidAfterReboot>' +
      '<tt:Timeout>PT0S</tt:Timeout></trt:MediaUri></trt:GetStreamUriResponse>'
    );
  };

  /** The answer body under 'ok', or undefined when the path does not serve the operation. */
  const serve = (path: string, operation: string, xml: string): string | undefined => {
    if (path === DEVICE_PATH) {
      if (operation === 'GetSystemDateAndTime') return envelope(dateAndTime());
      if (operation === 'GetCapabilities') {
        return envelope(
          '<tds:GetCapabilitiesResponse><tds:Capabilities><tt:Media>' +
            `<tt:XAddr>http://192.0.2.10:8899${MEDIA_PATH}</tt:XAddr>` +
            '<tt:StreamingCapabilities><tt:RTPMulticast>false</tt:RTPMulticast><tt:RTP_TCP>true</tt:RTP_TCP>' +
            '<tt:RTP_RTSP_TCP>true</tt:RTP_RTSP_TCP></tt:StreamingCapabilities></tt:Media></tds:Capabilities>' +
            '</tds:GetCapabilitiesResponse>',
        );
      }
      if (operation === 'SystemReboot') {
        reboots++;
        return envelope('<tds:SystemRebootResponse><tds:Message>Rebooting in 30 seconds</tds:Message></tds:SystemRebootResponse>');
      }
    }
    if (path === MEDIA_PATH) {
      if (operation === 'GetProfiles') return envelope(profilesAnswer());
      if (operation === 'GetStreamUri') return envelope(streamUri(xml));
    }
    return undefined;
  };

  const handle = (req: IncomingMessage, res: ServerResponse, xml: string) => {
    const operation = /<(?:\w+:)?Body(?:\s[^>]*)?>\s*<(?:\w+:)?(\w+)/.exec(xml)?.[1] ?? '';
    seen.push(operation);
    if (req.method !== 'POST') return answer(res, 405, '', 'text/plain');
    if (!OPEN_OPERATIONS.has(operation) && !authenticated(xml)) {
      return answer(res, 400, fault('Sender', 'NotAuthorized', 'Sender not Authorized'));
    }
    switch (behaviour) {
      case 'hang':
        return;
      case 'refuse':
        return answer(res, 400, fault('Sender', 'OperationProhibited', 'Denied by device policy'));
      case 'garbage':
        return answer(res, 200, 'Welcome to the web service! This is not XML at all.', 'text/plain');
      case 'fail-status':
        return answer(res, 200, fault('Receiver', 'Action', 'Internal trouble'));
      case 'huge':
      case 'ok': {
        const body = serve(req.url ?? '', operation, xml);
        if (body === undefined) return answer(res, 400, fault('Sender', 'ActionNotSupported', 'Not supported'));
        return behaviour === 'huge' ? streamHugeBody(res, 'application/soap+xml; charset=utf-8', body) : answer(res, 200, body);
      }
    }
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8')));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    host: '127.0.0.1',
    port,
    mediaPath: MEDIA_PATH,
    rebootCount: () => reboots,
    operations: () => [...seen],
    setBehaviour: (next) => {
      behaviour = next;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
