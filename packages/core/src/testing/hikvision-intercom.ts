import { digestAuth, startFakeRebootDevice, type FakeIntercom, type FakeIntercomBehaviour } from './digest-server';

/**
 * How the fake answers an authenticated reboot: 'ok' accepts it; 'refuse' answers 403; 'hang' never
 * answers; 'garbage' answers 200 with text that is not XML; 'huge' streams a 200 body of 2 MiB;
 * 'fail-status' answers 200 with an ISAPI failure status.
 */
export type FakeHikvisionBehaviour = FakeIntercomBehaviour;

export type FakeHikvisionIntercom = FakeIntercom;

const REALM = 'IP Camera(E1234)';
const REBOOT_PATH = '/ISAPI/System/reboot';
const XML = 'application/xml';

const responseStatus = (statusCode: number, statusString: string, subStatusCode: string) =>
  '<?xml version="1.0" encoding="UTF-8"?><ResponseStatus version="2.0" xmlns="http://www.hikvision.com/ver20/XMLSchema">' +
  `<requestURL>${REBOOT_PATH}</requestURL><statusCode>${statusCode}</statusCode><statusString>${statusString}</statusString>` +
  `<subStatusCode>${subStatusCode}</subStatusCode></ResponseStatus>`;

/**
 * A Hikvision intercom on 127.0.0.1 speaking ISAPI: it challenges every request with MD5 Digest
 * (qop="auth"), checks the answer against its own login and password, and handles
 * `PUT /ISAPI/System/reboot` as `behaviour` says.
 */
export function startFakeHikvisionIntercom(options: {
  login: string;
  password: string;
  behaviour?: FakeHikvisionBehaviour;
}): Promise<FakeHikvisionIntercom> {
  return startFakeRebootDevice({
    behaviour: options.behaviour,
    auth: digestAuth(options, {
      realm: REALM,
      extraChallengeParams: 'stale="FALSE"',
      unauthorized: {
        contentType: XML,
        body: '<?xml version="1.0" encoding="UTF-8"?><userCheck><statusValue>401</statusValue><statusString>Unauthorized</statusString></userCheck>',
      },
    }),
    endpoint: {
      method: 'PUT',
      path: REBOOT_PATH,
      notFound: { status: 404, contentType: XML, body: responseStatus(4, 'Invalid Operation', 'notSupport') },
      wrongMethod: { status: 405, contentType: XML, body: responseStatus(4, 'Invalid Operation', 'methodNotAllowed') },
      replies: {
        ok: { status: 200, contentType: XML, body: responseStatus(1, 'OK', 'ok') },
        refuse: { status: 403, contentType: XML, body: responseStatus(4, 'Invalid Operation', 'lowPrivilege') },
        garbage: { status: 200, contentType: 'text/plain', body: 'Welcome to the web service! This is not XML at all.' },
        'fail-status': { status: 200, contentType: XML, body: responseStatus(6, 'Invalid Content', 'badXmlContent') },
      },
    },
  });
}
