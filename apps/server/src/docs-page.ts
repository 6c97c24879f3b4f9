import { createHash } from 'node:crypto';
import { posix } from 'node:path';
import { operations, type buildOpenApiDocument, type OperationAuth, type OperationName } from '@vss/schema';
import { escapeHtml } from './http/negotiate';

type OpenApiDocument = ReturnType<typeof buildOpenApiDocument>;

type JsonSchema = Record<string, unknown>;

/** The parts of an operation object of the document that the page shows. */
interface DocumentedOperation {
  operationId: OperationName;
  summary: string;
  tags: string[];
  deprecated?: boolean;
  parameters?: { name: string; in: string; required: boolean; schema: JsonSchema }[];
  requestBody?: { required: boolean; content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, { description: string; content?: Record<string, { schema: JsonSchema }> }>;
}

// OpenAPI has no words for "the console only" or "a token of this one stream", so the page takes
// them from the operation table rather than from the security requirements.
const AUTH: Record<OperationAuth, string> = {
  'api-token': 'API token: Authorization: Bearer <token>, Authorization: <token>, or ?token=. Without a valid one: 401.',
  'access-token':
    'An access token of the stream in the path, or an API token: ?token= or the Authorization header. Any other token, or none: 403.',
  loopback: 'No token, but only from the server console (a loopback peer without forwarding headers); 403 otherwise.',
  none: 'None.',
};

// Fixed, so that the Content-Security-Policy can allow it by its hash. The page runs no script.
const STYLE = [
  'body{font-family:system-ui,sans-serif;max-width:64rem;margin:2rem auto;padding:0 1rem;color:#222;line-height:1.4}',
  'code,pre{font-family:ui-monospace,monospace;font-size:.85rem}',
  'pre{background:#f5f5f5;padding:.5rem;overflow:auto;max-height:24rem}',
  'section.op{border-top:1px solid #ddd;padding:.5rem 0 1rem}',
  '.method{display:inline-block;min-width:3.5rem;font-weight:bold}',
  '.deprecated{color:#a00;font-weight:bold}',
  'table{border-collapse:collapse}th,td{text-align:left;vertical-align:top;padding:.2rem .6rem;border-bottom:1px solid #eee}',
].join('');

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/** The headers of the page: nothing but its own style may load, and nothing may run. */
export const DOCS_HEADERS: Record<string, string> = {
  'content-security-policy': `default-src 'none'; style-src ${sha256(STYLE)}; base-uri 'none'; form-action 'none'`,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/** A JSON Schema, pretty-printed without its `$schema` line, which every one of them repeats. */
function json({ $schema: _dialect, ...rest }: JsonSchema): string {
  return `<pre>${escapeHtml(JSON.stringify(rest, null, 2))}</pre>`;
}
const anchor = (operationId: string) => `op-${operationId}`;

/** Rows of a table, every cell escaped unless it is markup this file made. */
function table(headings: string[], rows: (string | { html: string })[][]): string {
  const cell = (value: string | { html: string }) => (typeof value === 'string' ? escapeHtml(value) : value.html);
  return `<table><thead><tr>${headings.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${rows
    .map((row) => `<tr>${row.map((value) => `<td>${cell(value)}</td>`).join('')}</tr>`)
    .join('')}</tbody></table>`;
}

/** Media type and schema of each content entry; folded (no script needed) unless `open`. */
function contentList(content: Record<string, { schema: JsonSchema }>, open = false): string {
  return Object.entries(content)
    .map(
      ([type, { schema }]) =>
        `<details${open ? ' open' : ''}><summary><code>${escapeHtml(type)}</code></summary>${json(schema)}</details>`,
    )
    .join('');
}

function renderOperation(method: string, path: string, operation: DocumentedOperation): string {
  const { auth } = operations[operation.operationId];
  const parts = [
    `<h3><span class="method">${escapeHtml(method.toUpperCase())}</span> <code>${escapeHtml(path)}</code>${
      operation.deprecated ? ' <span class="deprecated">deprecated</span>' : ''
    }</h3>`,
    `<p>${escapeHtml(operation.summary)}</p>`,
    `<p><strong>Auth:</strong> ${escapeHtml(AUTH[auth])}</p>`,
  ];
  if (operation.parameters?.length) {
    parts.push(
      '<h4>Parameters</h4>',
      table(
        ['name', 'in', 'required', 'schema'],
        operation.parameters.map((p) => [p.name, p.in, p.required ? 'yes' : 'no', { html: json(p.schema) }]),
      ),
    );
  }
  if (operation.requestBody) {
    parts.push(`<h4>Request body${operation.requestBody.required ? '' : ' (optional)'}</h4>`, contentList(operation.requestBody.content, true));
  }
  parts.push(
    '<h4>Responses</h4>',
    table(
      ['status', 'meaning', 'body'],
      Object.entries(operation.responses).map(([status, response]) => [
        status,
        response.description,
        { html: response.content ? contentList(response.content) : 'none' },
      ]),
    ),
  );
  return `<section class="op" id="${escapeHtml(anchor(operation.operationId))}">\n${parts.join('\n')}\n</section>`;
}

/**
 * The API reference as one static HTML page, made from the OpenAPI document: operations grouped
 * by tag, each with its auth, parameters and schemas. It loads nothing and runs no script, so it
 * works offline and behind any Content-Security-Policy.
 */
export function renderDocsPage(document: OpenApiDocument, pagePath = operations.docs.path): string {
  const byTag = new Map<string, { method: string; path: string; operation: DocumentedOperation }[]>();
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, described] of Object.entries(methods)) {
      const operation = described as DocumentedOperation;
      const tag = operation.tags[0] ?? 'other';
      byTag.set(tag, [...(byTag.get(tag) ?? []), { method, path, operation }]);
    }
  }
  const title = `${document.info.title} ${document.info.version}`;
  // Relative, so that the link works under any path prefix a proxy adds.
  const openApiLink = posix.relative(posix.dirname(pagePath), operations.openApi.path);
  const contents = [...byTag]
    .map(
      ([tag, entries]) =>
        `<li>${escapeHtml(tag)}<ul>${entries
          .map(
            ({ method, path, operation }) =>
              `<li><a href="#${escapeHtml(anchor(operation.operationId))}">${escapeHtml(method.toUpperCase())} ${escapeHtml(path)}</a></li>`,
          )
          .join('')}</ul></li>`,
    )
    .join('');
  const groups = [...byTag]
    .map(
      ([tag, entries]) =>
        `<h2>${escapeHtml(tag)}</h2>\n${entries.map(({ method, path, operation }) => renderOperation(method, path, operation)).join('\n')}`,
    )
    .join('\n');
  const schemes = Object.entries(document.components.securitySchemes).map(([name, scheme]) => [
    name,
    scheme.description,
  ]);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(document.info.description)}</p>
<p>Machine-readable: <a href="${escapeHtml(openApiLink)}">the OpenAPI ${escapeHtml(document.openapi)} document</a>.</p>
<h2>Authentication</h2>
${table(['scheme', 'how'], schemes)}
<h2>Operations</h2>
<ul>${contents}</ul>
${groups}
</body>
</html>
`;
}
