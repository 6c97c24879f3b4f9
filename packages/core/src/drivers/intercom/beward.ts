import { httpRebootIntercom } from './http-reboot';
import type { IntercomDriver, IntercomDriverOptions } from './types';

/**
 * Beward DKS intercoms through their HTTP CGI API: `GET /cgi-bin/restart_cgi`. The device asks for
 * Basic authentication by default and Digest when so configured; deviceRequest answers either.
 */
export function bewardIntercom(options?: IntercomDriverOptions): IntercomDriver {
  return httpRebootIntercom(
    {
      vendor: 'beward',
      method: 'GET',
      path: '/cgi-bin/restart_cgi',
      // Some firmware wraps the acknowledgement in a small HTML page, so leave room for one.
      defaultMaxBodyBytes: 64 * 1024,
      acknowledgement: 'OK',
      acknowledges: bewardAnswerIsOk,
    },
    options,
  );
}

/**
 * Whether a Beward CGI answer acknowledges the command. Firmware answers either a bare `OK` line or an
 * HTML page saying OK, so the page's visible text is what counts: `OK` must stand there as a word of
 * its own, in capitals as Beward writes it, so that "TOKEN" or an OK inside markup does not pass.
 * Text that also reports an error or "NOT OK" is ambiguous and counts as a failure, because a reboot
 * wrongly reported done is worse than one retried.
 */
export function bewardAnswerIsOk(body: string): boolean {
  const visible = body
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<[^>]*>/g, ' ');
  if (/\b(?:error|fail(?:ed|ure)?|not\s+ok)\b/i.test(visible)) return false;
  return /\bOK\b/.test(visible);
}
