import { basicAuth, startFakeRebootDevice, type FakeIntercom, type FakeIntercomBehaviour, type FakeIntercomOptions } from './digest-server';

/**
 * How the fake answers an authenticated reboot: 'ok' answers an HTML page saying OK, as DKS firmware
 * does; 'refuse' answers 403; 'hang' never answers; 'garbage' answers 200 with a page whose only "OK"
 * is inside other words or markup; 'huge' streams a 200 body of 2 MiB; 'fail-status' answers 200
 * with a page reporting an error.
 */
export type FakeBewardBehaviour = FakeIntercomBehaviour;

export type FakeBewardIntercom = FakeIntercom;

const HTML = 'text/html';
const page = (text: string) => `<html><head><title>DKS</title></head><body>${text}</body></html>`;

/**
 * A Beward DKS intercom on 127.0.0.1 speaking the CGI API: it demands HTTP Basic authentication,
 * Beward's default, and handles `GET /cgi-bin/restart_cgi` as `behaviour` says.
 */
export function startFakeBewardIntercom(options: FakeIntercomOptions): Promise<FakeBewardIntercom> {
  return startFakeRebootDevice({
    behaviour: options.behaviour,
    auth: basicAuth(options, {
      realm: 'DKS',
      unauthorized: { contentType: HTML, body: page('401 Unauthorized') },
    }),
    endpoint: {
      method: 'GET',
      path: '/cgi-bin/restart_cgi',
      notFound: { status: 404, contentType: HTML, body: page('404 Not Found') },
      wrongMethod: { status: 501, contentType: HTML, body: page('501 Not Implemented') },
      replies: {
        ok: { status: 200, contentType: HTML, body: page('OK') },
        refuse: { status: 403, contentType: HTML, body: page('403 Forbidden') },
        garbage: { status: 200, contentType: HTML, body: page('<input type="button" value="OK"> TOKEN BROKEN') },
        'fail-status': { status: 200, contentType: HTML, body: page('Error: restart failed, NOT OK') },
      },
    },
  });
}
