import { buildOpenApiDocument, operations, type Operation } from '@vss/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderDocsPage } from '../../src/docs-page';
import { escapeHtml } from '../../src/http/negotiate';
import { startTestServer, type TestServer } from '../support/server';

const all = Object.entries(operations) as [string, Operation][];

describe('the API reference page at GET /api/docs', () => {
  let server: TestServer;
  let response: Response;
  let html: string;

  beforeAll(async () => {
    server = await startTestServer('pglite');
    // As a browser asks: no token, HTML preferred.
    response = await server.request(operations.docs.path, { token: false, headers: { accept: 'text/html' } });
    html = await response.text();
  });
  afterAll(() => server?.stop());

  it('is an HTML page, served without a token', () => {
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html;\s*charset=utf-8/);
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('<title>VSS API ');
  });

  it('shows every operation: method, path, summary and an anchor of its own', () => {
    for (const [name, operation] of all) {
      const section = new RegExp(`<section class="op" id="op-${name}">([\\s\\S]*?)</section>`).exec(html)?.[1];
      expect(section, name).toBeDefined();
      expect(section).toContain(`<span class="method">${operation.method.toUpperCase()}</span> <code>${operation.path}</code>`);
      expect(section).toContain(escapeHtml(operation.summary));
      expect(html).toContain(`href="#op-${name}"`);
    }
  });

  it('groups operations under their tags, with parameters, schemas and auth', () => {
    const headings = [...html.matchAll(/<h2>([^<]+)<\/h2>/g)].map((match) => match[1]);
    expect(headings).toEqual(expect.arrayContaining([...new Set(all.map(([, op]) => op.tag))]));
    const createCamera = /id="op-createCameraV2">([\s\S]*?)<\/section>/.exec(html)![1]!;
    // The request schema, pretty-printed and escaped.
    expect(createCamera).toMatch(/&quot;archive_storage_days&quot;: \{/);
    expect(createCamera).toContain('API token');
    expect(createCamera).toContain('<td>422</td>');
    const live = /id="op-mediaLive">([\s\S]*?)<\/section>/.exec(html)![1]!;
    expect(live).toContain('<td>uid</td><td>path</td><td>yes</td>');
    expect(live).toContain('An access token of the stream');
    expect(live).toContain('<code>application/vnd.apple.mpegurl</code>');
    expect(/id="op-issueApiToken">([\s\S]*?)<\/section>/.exec(html)![1]).toContain('server console');
    expect(/id="op-createCameraV1">([\s\S]*?)<\/h3>/.exec(html)![1]).toContain('deprecated');
  });

  it('loads nothing from elsewhere and runs no script', () => {
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/\b(?:src|href)\s*=\s*["']?(?:https?:)?\/\//i);
    const policy = response.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("default-src 'none'");
    expect(policy).not.toContain('script-src');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('links to the OpenAPI document relatively, and the link works', async () => {
    const href = /<a href="([^"]+)">the OpenAPI/.exec(html)![1]!;
    expect(href).not.toMatch(/^\//);
    const target = new URL(href, `${server.url}${operations.docs.path}`);
    const document = await fetch(target);
    expect(document.status).toBe(200);
    expect(((await document.json()) as { openapi: string }).openapi).toMatch(/^3\.1\./);
  });

  it('escapes whatever the document says', () => {
    const document = buildOpenApiDocument({ version: '<b>1</b>' });
    const health = document.paths[operations.health.path]!.get as { summary: string };
    health.summary = `<script>alert("x")</script> & 'more'`;
    const page = renderDocsPage(document);
    expect(page).not.toContain('<script');
    expect(page).not.toContain('<b>1</b>');
    expect(page).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;more&#39;');
    expect(page).toContain('VSS API &lt;b&gt;1&lt;/b&gt;');
  });
});
