import { describe, expect, it } from 'vitest';
import { fakeEvent } from './fake-event';
import { isJsonMediaType, renderHtmlError, wantsJson } from './negotiate';

const accepting = (accept: string) => wantsJson(fakeEvent({ headers: { accept } }));

describe('isJsonMediaType', () => {
  it('accepts application/json and +json with parameters, nothing else', () => {
    expect(isJsonMediaType('application/json')).toBe(true);
    expect(isJsonMediaType('Application/JSON; charset=utf-8')).toBe(true);
    expect(isJsonMediaType('application/merge-patch+json')).toBe(true);
    expect(isJsonMediaType('text/plain')).toBe(false);
    expect(isJsonMediaType('application/jsonx')).toBe(false);
    expect(isJsonMediaType('+json')).toBe(false);
    expect(isJsonMediaType(undefined)).toBe(false);
  });
});

describe('wantsJson', () => {
  it('is true when the request sends JSON, whatever it accepts', () => {
    expect(wantsJson(fakeEvent({ headers: { 'content-type': 'application/json', accept: 'text/html' } }))).toBe(true);
  });

  it('is false without Accept, or with only */*', () => {
    expect(wantsJson(fakeEvent())).toBe(false);
    expect(accepting('*/*')).toBe(false);
  });

  it('follows q-values', () => {
    expect(accepting('application/json')).toBe(true);
    expect(accepting('text/html;q=0.5, application/json')).toBe(true);
    expect(accepting('application/json;q=0.5, text/html')).toBe(false);
    expect(accepting('text/html, application/json;q=0.9')).toBe(false);
    expect(accepting('application/json;q=0')).toBe(false);
    expect(accepting('application/problem+json, text/html;q=0.1')).toBe(true);
    expect(accepting('*/*+json')).toBe(true);
  });

  it('lets an explicit JSON range beat a wildcard at the same q', () => {
    expect(accepting('application/json, text/plain, */*')).toBe(true);
    expect(accepting('text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8')).toBe(false);
    expect(accepting('application/json, text/html')).toBe(false);
  });

  it('drops ranges with a malformed q instead of guessing', () => {
    expect(accepting('application/json;q=2, text/html;q=0.1')).toBe(false);
    expect(accepting('application/json;q=abc')).toBe(false);
  });
});

describe('renderHtmlError', () => {
  it('renders a complete page with every value escaped', () => {
    const html = renderHtmlError(404, 'Not <Found>', '<script>alert("x")</script> & \'more\'');
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('<title>404 Not &lt;Found&gt;</title>');
    expect(html).toContain('<h1>404 Not &lt;Found&gt;</h1>');
    expect(html).toContain('<p>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;more&#39;</p>');
    expect(html).not.toContain('<script');
  });
});
