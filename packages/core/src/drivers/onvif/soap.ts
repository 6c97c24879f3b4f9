import { createHash, randomBytes } from 'node:crypto';
import { VssError } from '../../errors';
import { deviceRequest } from '../intercom/digest';

/** What an ONVIF client needs to reach one device. The password is already decrypted. */
export interface OnvifTarget {
  host: string;
  port: number;
  login: string;
  password: string;
}

export interface SoapOptions {
  /** The budget of each request, in milliseconds. */
  timeoutMs: number;
  /** The largest answer read, in bytes. */
  maxBodyBytes: number;
  signal?: AbortSignal;
  /** How error messages name the device, e.g. "camera". */
  device: string;
}

/** The path every ONVIF device serves its Device service on (ONVIF Core, section 5.1.1). */
export const DEVICE_SERVICE_PATH = '/onvif/device_service';

export const NS = {
  device: 'http://www.onvif.org/ver10/device/wsdl',
  media: 'http://www.onvif.org/ver10/media/wsdl',
  schema: 'http://www.onvif.org/ver10/schema',
} as const;

const SOAP_ENVELOPE = 'http://www.w3.org/2003/05/soap-envelope';
const WSSE = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd';
const WSU = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd';
const PASSWORD_DIGEST = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0#PasswordDigest';
const BASE64_BINARY = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-soap-message-security-1.0#Base64Binary';

// ---------------------------------------------------------------------------------------------
// XML, by hand: only what ONVIF answers need, and every scan is linear in the (capped) body.

export function escapeXml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

export function unescapeXml(value: string): string {
  return value.replace(/&(amp|lt|gt|quot|apos|#\d{1,7}|#x[0-9a-fA-F]{1,6});/g, (entity, name: string) => {
    const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
    if (named[name] !== undefined) return named[name];
    const code = name.startsWith('#x') ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
    return code <= 0x10ffff ? String.fromCodePoint(code) : entity;
  });
}

export interface XmlElement {
  /** The raw attribute text of the start tag. */
  attributes: string;
  /** The raw content between the start and end tags; empty for a self-closing element. */
  inner: string;
}

/**
 * Every element with this local name, whatever its namespace prefix, in document order. Elements of
 * the same name nested in one another are not supported; ONVIF answers do not nest the ones we read.
 */
export function xmlElements(xml: string, localName: string): XmlElement[] {
  if (!/^[A-Za-z_][\w.-]*$/.test(localName)) throw new Error(`Not an XML name: ${localName}`);
  const open = new RegExp(`<(?:[A-Za-z_][\\w.-]*:)?${localName}(?=[\\s/>])([^>]*)>`, 'g');
  const close = new RegExp(`</(?:[A-Za-z_][\\w.-]*:)?${localName}\\s*>`, 'g');
  const found: XmlElement[] = [];
  for (let start = open.exec(xml); start; start = open.exec(xml)) {
    const attributes = start[1] ?? '';
    if (attributes.endsWith('/')) {
      found.push({ attributes: attributes.slice(0, -1), inner: '' });
      continue;
    }
    close.lastIndex = open.lastIndex;
    const end = close.exec(xml);
    // No end tag after this start tag means none after any later one either: stop rather than rescan.
    if (!end) break;
    found.push({ attributes, inner: xml.slice(open.lastIndex, end.index) });
    open.lastIndex = close.lastIndex;
  }
  return found;
}

/** The trimmed, unescaped text of the first element with this local name. */
export function xmlText(xml: string, localName: string): string | undefined {
  const inner = xmlElements(xml, localName)[0]?.inner;
  return inner === undefined ? undefined : unescapeXml(inner.trim());
}

export function xmlAttribute(attributes: string, name: string): string | undefined {
  const match = new RegExp(`(?:^|\\s)(?:[A-Za-z_][\\w.-]*:)?${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`).exec(attributes);
  return match ? unescapeXml(match[1] ?? match[2] ?? '') : undefined;
}

// ---------------------------------------------------------------------------------------------
// WS-Security UsernameToken (OASIS Username Token Profile 1.0), which ONVIF Core section 5.9.4 requires.

/** Base64(SHA-1(nonce + created + password)), the nonce taken as its raw bytes. */
export function passwordDigest(nonce: Buffer, created: string, password: string): string {
  return createHash('sha1')
    .update(Buffer.concat([nonce, Buffer.from(created, 'utf8'), Buffer.from(password, 'utf8')]))
    .digest('base64');
}

/**
 * The `wsse:Security` header. Created has no fractional seconds because some firmware refuses them.
 * `now` is the device's clock, not ours: devices refuse tokens created too far from their own time.
 */
export function usernameTokenHeader(
  login: string,
  password: string,
  { nonce = randomBytes(16), now = new Date() }: { nonce?: Buffer; now?: Date } = {},
): string {
  const created = now.toISOString().replace(/\.\d+Z$/, 'Z');
  return (
    `<wsse:Security s:mustUnderstand="1" xmlns:wsse="${WSSE}" xmlns:wsu="${WSU}"><wsse:UsernameToken>` +
    `<wsse:Username>${escapeXml(login)}</wsse:Username>` +
    `<wsse:Password Type="${PASSWORD_DIGEST}">${passwordDigest(nonce, created, password)}</wsse:Password>` +
    `<wsse:Nonce EncodingType="${BASE64_BINARY}">${nonce.toString('base64')}</wsse:Nonce>` +
    `<wsu:Created>${created}</wsu:Created></wsse:UsernameToken></wsse:Security>`
  );
}

export function soapEnvelope(body: string, header = ''): string {
  return (
    `<?xml version="1.0" encoding="UTF-8"?><s:Envelope xmlns:s="${SOAP_ENVELOPE}">` +
    `<s:Header>${header}</s:Header><s:Body>${body}</s:Body></s:Envelope>`
  );
}

// ---------------------------------------------------------------------------------------------
// Calls.

export interface SoapCall {
  /** The service path, e.g. DEVICE_SERVICE_PATH. */
  path: string;
  /** The operation's namespace; with `operation` it makes the SOAP 1.2 action. */
  namespace: string;
  /** The operation name, e.g. "GetProfiles". Also names the call in error messages. */
  operation: string;
  /** The operation element, complete; defaults to an empty one. */
  body?: string;
}

/**
 * The local name of a fault's most specific code (e.g. "NotAuthorized" for ter:NotAuthorized under
 * env:Sender). It is checked to be a plain name, as it is the only device text a message may carry.
 */
function faultCode(fault: string): string {
  const code = xmlElements(fault, 'Code')[0]?.inner ?? '';
  const values = xmlElements(code, 'Value').map((value) => unescapeXml(value.inner.trim()));
  const local = (values.at(-1) ?? '').replace(/^[^:]*:/, '');
  return /^[A-Za-z_][\w.-]{0,63}$/.test(local) ? local : 'unknown';
}

interface SoapAnswer {
  status: number;
  /** The content of the envelope's Body; undefined when the answer is not a SOAP envelope. */
  body: string | undefined;
  /** The fault's code when the Body holds a Fault. */
  fault: string | undefined;
}

/** One SOAP 1.2 exchange, with transport failures thrown as `deviceRequest` throws them. */
async function exchange(target: OnvifTarget, call: SoapCall, options: SoapOptions & { deviceClock?: Date }): Promise<SoapAnswer> {
  const action = `${call.namespace}/${call.operation}`;
  const header =
    options.deviceClock === undefined || target.login === ''
      ? ''
      : usernameTokenHeader(target.login, target.password, { now: options.deviceClock });
  const response = await deviceRequest({
    host: target.host,
    port: target.port,
    login: target.login,
    password: target.password,
    method: 'POST',
    path: call.path,
    headers: { 'content-type': `application/soap+xml; charset=utf-8; action="${action}"` },
    body: soapEnvelope(call.body ?? `<${call.operation} xmlns="${call.namespace}"/>`, header),
    timeoutMs: options.timeoutMs,
    maxBodyBytes: options.maxBodyBytes,
    device: options.device,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const xml = response.body.toString('utf8');
  const body = xmlElements(xml, 'Envelope').length > 0 ? xmlElements(xml, 'Body')[0]?.inner : undefined;
  const fault = body === undefined ? undefined : xmlElements(body, 'Fault')[0];
  return { status: response.status, body, fault: fault && faultCode(fault.inner) };
}

/**
 * One SOAP 1.2 exchange with an ONVIF device; resolves to the content of the answer's Body. Faults,
 * refusals and answers that are not SOAP become VssError `device_error`, naming at most the fault
 * code; transport failures are `deviceRequest`'s (`device_error` / `device_timeout`).
 * `deviceClock` is the device's current time, for the UsernameToken; without it no token is sent.
 */
export async function soapCall(
  target: OnvifTarget,
  call: SoapCall,
  options: SoapOptions & { deviceClock?: Date },
): Promise<string> {
  const { status, body, fault } = await exchange(target, call, options);
  // Devices answer faults with 400 or 500, and some with 200, so the body decides before the status.
  if (fault === 'NotAuthorized') {
    throw new VssError('device_error', `The ${options.device} refused the login or password (SOAP fault ${fault}).`);
  }
  if (fault !== undefined) {
    throw new VssError('device_error', `The ${options.device} refused ${call.operation} (SOAP fault ${fault}).`);
  }
  if (status === 401) {
    throw new VssError('device_error', `The ${options.device} refused the login or password (HTTP 401).`);
  }
  if (status < 200 || status > 299) {
    throw new VssError('device_error', `The ${options.device} refused ${call.operation} (HTTP ${status}).`);
  }
  if (body === undefined) {
    throw new VssError('device_error', `The ${options.device} answered ${call.operation} with something other than SOAP.`);
  }
  return body;
}

const DATE_PARTS = ['Year', 'Month', 'Day'] as const;
const TIME_PARTS = ['Hour', 'Minute', 'Second'] as const;

/**
 * The device's clock as an offset from ours, in milliseconds, from GetSystemDateAndTime, which ONVIF
 * devices answer without authentication. Cameras without NTP often run hours or years off, and they
 * refuse a UsernameToken whose Created is far from their own time. A device that faults or answers
 * nonsense is assumed to be on time; one that does not answer at all fails the call.
 */
export async function deviceClockOffset(target: OnvifTarget, options: SoapOptions): Promise<number> {
  const sentAt = Date.now();
  const answer = await exchange(
    target,
    { path: DEVICE_SERVICE_PATH, namespace: NS.device, operation: 'GetSystemDateAndTime' },
    options,
  );
  const body = answer.fault === undefined ? (answer.body ?? '') : '';
  const utc = xmlElements(body, 'UTCDateTime')[0]?.inner ?? '';
  const date = xmlElements(utc, 'Date')[0]?.inner ?? '';
  const time = xmlElements(utc, 'Time')[0]?.inner ?? '';
  const numbers = [
    ...DATE_PARTS.map((part) => Number(xmlText(date, part))),
    ...TIME_PARTS.map((part) => Number(xmlText(time, part))),
  ];
  if (!numbers.every(Number.isInteger)) return 0;
  const [year = 0, month = 1, day = 1, hour = 0, minute = 0, second = 0] = numbers;
  const deviceNow = Date.UTC(year, month - 1, day, hour, minute, second);
  // The device read its clock somewhere during the round trip; its middle is the best guess.
  return deviceNow - (sentAt + Date.now()) / 2;
}

/**
 * A caller's series of calls to one device: the clock offset is learnt once, and every call after
 * it carries a fresh UsernameToken dated in the device's time.
 */
export async function openSoapSession(
  target: OnvifTarget,
  options: SoapOptions,
): Promise<(call: SoapCall) => Promise<string>> {
  const offset = await deviceClockOffset(target, options);
  return (call) => soapCall(target, call, { ...options, deviceClock: new Date(Date.now() + offset) });
}
