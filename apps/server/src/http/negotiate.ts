import type { H3Event } from 'h3';

/** `application/json` or any structured `+json` type, parameters (charset) allowed. */
export function isJsonMediaType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const essence = contentType.split(';', 1)[0]!.trim().toLowerCase();
  const slash = essence.indexOf('/');
  if (slash <= 0) return false;
  const subtype = essence.slice(slash + 1);
  return essence === 'application/json' || subtype.endsWith('+json');
}

interface MediaRange {
  type: string;
  subtype: string;
  q: number;
}

const Q_VALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

function parseAccept(header: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const part of header.split(',')) {
    const [range = '', ...params] = part.split(';');
    const [type, subtype, extra] = range.trim().toLowerCase().split('/');
    if (!type || !subtype || extra !== undefined) continue;
    let q: number | undefined = 1;
    for (const param of params) {
      const [name = '', value = ''] = param.split('=').map((s) => s.trim());
      if (name.toLowerCase() === 'q') q = Q_VALUE.test(value) ? Number(value) : undefined;
    }
    // A range with a malformed q is dropped rather than guessed at.
    if (q !== undefined) ranges.push({ type, subtype, q });
  }
  return ranges;
}

/** q of the most specific matching range; specificity 2 exact, 1 `type/*`, 0 `*\/*`, -1 none. */
interface Preference {
  q: number;
  specificity: number;
}

function preferenceFor(
  ranges: MediaRange[],
  type: string,
  subtype: string,
  isExact = (range: MediaRange) => range.type === type && range.subtype === subtype,
): Preference {
  let best: Preference = { q: 0, specificity: -1 };
  for (const range of ranges) {
    const specificity = isExact(range) ? 2
      : range.type === type && range.subtype === '*' ? 1
      : range.type === '*' && range.subtype === '*' ? 0
      : -1;
    if (specificity < 0) continue;
    if (specificity > best.specificity || (specificity === best.specificity && range.q > best.q)) {
      best = { q: range.q, specificity };
    }
  }
  return best;
}

/**
 * Whether an error should be answered as JSON: the request sent JSON, or its Accept prefers JSON to
 * HTML. At equal q the more specific range wins, so `application/json, *\/*` (what HTTP libraries
 * send) is JSON while a bare `*\/*` or a missing Accept stays HTML, as the specification says.
 */
export function wantsJson(event: H3Event): boolean {
  const { headers } = event.node.req;
  if (isJsonMediaType(headers['content-type'])) return true;
  if (!headers.accept) return false;
  const ranges = parseAccept(headers.accept);
  // `application/problem+json`, `*/*+json` and the like name JSON as explicitly as application/json.
  const json = preferenceFor(
    ranges,
    'application',
    'json',
    (range) => (range.type === 'application' && range.subtype === 'json') || range.subtype.endsWith('+json'),
  );
  const html = preferenceFor(ranges, 'text', 'html');
  if (json.q === 0) return false;
  return json.q > html.q || (json.q === html.q && json.specificity > html.specificity);
}

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char]!);
}

/** A self-contained error page: no scripts, no external resources, nothing but the escaped text. */
export function renderHtmlError(status: number, title: string, message: string): string {
  const heading = escapeHtml(`${status} ${title}`);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${heading}</title>
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;color:#222}h1{font-size:1.5rem}</style>
</head>
<body>
<h1>${heading}</h1>
<p>${escapeHtml(message)}</p>
</body>
</html>
`;
}
