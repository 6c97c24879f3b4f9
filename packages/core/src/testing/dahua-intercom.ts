import { digestAuth, startFakeRebootDevice, type FakeIntercom, type FakeIntercomBehaviour, type FakeIntercomOptions } from './digest-server';

/**
 * How the fake answers an authenticated reboot: 'ok' answers `OK\r\n`; 'refuse' answers 403; 'hang'
 * never answers; 'garbage' answers 200 with an HTML page that mentions OK without being the
 * acknowledgement; 'huge' streams a 200 body of 2 MiB; 'fail-status' answers 200 with Dahua's `Error`.
 */
export type FakeDahuaBehaviour = FakeIntercomBehaviour;

export type FakeDahuaIntercom = FakeIntercom;

const TEXT = 'text/plain;charset=utf-8';

/**
 * A Dahua intercom on 127.0.0.1 speaking the CGI API: it challenges every request with MD5 Digest
 * (qop="auth") and handles `GET /cgi-bin/magicBox.cgi?action=reboot` as `behaviour` says.
 */
export function startFakeDahuaIntercom(options: FakeIntercomOptions): Promise<FakeDahuaIntercom> {
  return startFakeRebootDevice({
    behaviour: options.behaviour,
    auth: digestAuth(options, {
      realm: 'Login to 7G0ABCDEFGH1234',
      unauthorized: { contentType: TEXT, body: 'Error\r\nUnauthorized\r\n' },
    }),
    endpoint: {
      method: 'GET',
      path: '/cgi-bin/magicBox.cgi?action=reboot',
      notFound: { status: 400, contentType: TEXT, body: 'Error\r\nBad Request!\r\n' },
      wrongMethod: { status: 400, contentType: TEXT, body: 'Error\r\nBad Request!\r\n' },
      replies: {
        ok: { status: 200, contentType: TEXT, body: 'OK\r\n' },
        refuse: { status: 403, contentType: TEXT, body: 'Error\r\nNo Authority\r\n' },
        garbage: {
          status: 200,
          contentType: 'text/html',
          body: '<html><body>Welcome to the web service! Press OK to continue.</body></html>',
        },
        'fail-status': { status: 200, contentType: TEXT, body: 'Error\r\nInternal Error\r\n' },
      },
    },
  });
}
