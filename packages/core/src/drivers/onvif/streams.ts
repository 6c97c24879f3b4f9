import { VssError } from '../../errors';
import {
  DEVICE_SERVICE_PATH,
  NS,
  escapeXml,
  openSoapSession,
  xmlAttribute,
  xmlElements,
  xmlText,
  type OnvifTarget,
  type SoapCall,
} from './soap';

export interface OnvifStreamOptions {
  /** The budget of each of the few requests made, in milliseconds. */
  timeoutMs?: number;
  /** The largest answer read, in bytes; GetProfiles answers run to tens of KiB on multi-profile cameras. */
  maxBodyBytes?: number;
  signal?: AbortSignal;
}

const DEFAULT_TIMEOUT_MS = 5000;
const DEFAULT_MAX_BODY_BYTES = 256 * 1024;

/** Hosts a device names when it does not know the address it is reached at. */
const UNROUTABLE_HOSTS = new Set(['0.0.0.0', '127.0.0.1', 'localhost', '[::]', '[::1]']);

/**
 * The Media service's path, from GetCapabilities. Only the path is kept: the XAddr carries the
 * address the device believes it has, which behind NAT or a port forward is not the one we reach.
 */
async function mediaServicePath(call: (call: SoapCall) => Promise<string>): Promise<string> {
  const body = await call({
    path: DEVICE_SERVICE_PATH,
    namespace: NS.device,
    operation: 'GetCapabilities',
    body: `<GetCapabilities xmlns="${NS.device}"><Category>Media</Category></GetCapabilities>`,
  });
  const media = xmlElements(body, 'Media')[0]?.inner;
  const xaddr = media === undefined ? undefined : xmlText(media, 'XAddr');
  if (xaddr === undefined || !URL.canParse(xaddr)) {
    throw new VssError('device_error', 'The camera did not name its ONVIF media service.');
  }
  const url = new URL(xaddr);
  return `${url.pathname}${url.search}`;
}

async function streamUri(call: (call: SoapCall) => Promise<string>, path: string, profile: string): Promise<string> {
  const body = await call({
    path,
    namespace: NS.media,
    operation: 'GetStreamUri',
    body:
      `<GetStreamUri xmlns="${NS.media}"><StreamSetup><Stream xmlns="${NS.schema}">RTP-Unicast</Stream>` +
      `<Transport xmlns="${NS.schema}"><Protocol>RTSP</Protocol></Transport></StreamSetup>` +
      `<ProfileToken>${escapeXml(profile)}</ProfileToken></GetStreamUri>`,
  });
  const uri = xmlText(xmlElements(body, 'MediaUri')[0]?.inner ?? '', 'Uri');
  if (uri === undefined || !URL.canParse(uri) || !/^rtsps?:$/i.test(new URL(uri).protocol)) {
    throw new VssError('device_error', 'The camera answered GetStreamUri without an RTSP address.');
  }
  return uri;
}

/** A URL host for `host`, which may be a bare IPv6 address. */
function urlHost(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/**
 * The device's URI made usable from here: an address the device could not know (0.0.0.0, loopback)
 * becomes the one we reached it at, and the ONVIF credentials are added unless the URI has its own.
 */
export function completeStreamUri(uri: string, target: OnvifTarget): string {
  const url = new URL(uri);
  if (UNROUTABLE_HOSTS.has(url.hostname.toLowerCase())) url.hostname = urlHost(target.host);
  if (url.username === '' && url.password === '' && target.login !== '') {
    // The URL setters leave "%" alone, so encode fully ourselves: a password like "a%41" must stay literal.
    url.username = encodeURIComponent(target.login);
    url.password = encodeURIComponent(target.password);
  }
  return url.toString();
}

/**
 * The high and low RTSP addresses of a camera, asked over ONVIF: the first media profile is the high
 * stream and the second the low one (the first again when there is only one). Errors are VssError
 * `device_error` / `device_timeout`, never carrying the credentials or the device's text.
 */
export async function resolveOnvifStreamUris(
  target: OnvifTarget,
  options: OnvifStreamOptions = {},
): Promise<{ high: string; low: string }> {
  const call = await openSoapSession(target, {
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    device: 'camera',
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const mediaPath = await mediaServicePath(call);
  const profilesBody = await call({ path: mediaPath, namespace: NS.media, operation: 'GetProfiles' });
  const tokens = xmlElements(profilesBody, 'Profiles')
    .map((profile) => xmlAttribute(profile.attributes, 'token'))
    .filter((token): token is string => token !== undefined && token !== '');
  const [highToken, lowToken = highToken] = tokens;
  if (highToken === undefined || lowToken === undefined) {
    throw new VssError('device_error', 'The camera has no ONVIF media profile.');
  }
  const high = await streamUri(call, mediaPath, highToken);
  const low = lowToken === highToken ? high : await streamUri(call, mediaPath, lowToken);
  return { high: completeStreamUri(high, target), low: completeStreamUri(low, target) };
}
