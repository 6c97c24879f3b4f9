import { BlockList, isIP } from 'node:net';
import { getQuery, type H3Event } from 'h3';

// BlockList also matches IPv4-mapped IPv6 peers (::ffff:127.0.0.1) against the IPv4 subnet.
const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/** The TCP peer: never a header, which any client can write. */
export function peerAddress(event: H3Event): string | undefined {
  return event.node.req.socket.remoteAddress;
}

export function isLoopbackPeer(event: H3Event): boolean {
  const address = peerAddress(event);
  if (!address) return false;
  const family = isIP(address);
  return family !== 0 && loopback.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-real-ip'] as const;

export function hasForwardingHeader(event: H3Event): boolean {
  const { headers } = event.node.req;
  return FORWARDING_HEADERS.some((name) => headers[name] !== undefined);
}

/**
 * A request from the server's own console. A reverse proxy on the same host connects from
 * loopback too; its forwarding header is what tells it apart, so such a request is not local.
 */
export function isConsoleRequest(event: H3Event): boolean {
  return isLoopbackPeer(event) && !hasForwardingHeader(event);
}

const BEARER = /^bearer(?:\s+(\S*))?\s*$/i;

function headerToken(header: string | undefined): string | undefined {
  const authorization = header?.trim();
  if (!authorization) return undefined;
  const bearer = BEARER.exec(authorization);
  if (bearer) return bearer[1] || undefined;
  // Another scheme (Basic ...) carries no token of ours.
  return /\s/.test(authorization) ? undefined : authorization;
}

/** The token of `?token=`, if one was given. */
export function queryToken(event: H3Event): string | undefined {
  const value = getQuery(event).token;
  const token = Array.isArray(value) ? value[0] : value;
  return typeof token === 'string' && token !== '' ? token : undefined;
}

/** `Authorization: Bearer <t>`, `Authorization: <t>`, or `?token=<t>`, the header first. */
export function extractToken(event: H3Event): string | undefined {
  return headerToken(event.node.req.headers.authorization) ?? queryToken(event);
}
