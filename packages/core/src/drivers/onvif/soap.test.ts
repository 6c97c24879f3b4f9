import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { escapeXml, passwordDigest, unescapeXml, usernameTokenHeader, xmlAttribute, xmlElements, xmlText } from './soap';

describe('WS-Security UsernameToken', () => {
  const nonce = Buffer.from('000102030405060708090a0b0c0d0e0f', 'hex');
  const now = new Date('2026-03-01T12:34:56.789Z');

  it('digests nonce bytes, Created and password as the Username Token Profile says', () => {
    const created = '2026-03-01T12:34:56Z';
    const expected = createHash('sha1')
      .update(Buffer.concat([nonce, Buffer.from(created), Buffer.from('pässword')]))
      .digest('base64');
    expect(passwordDigest(nonce, created, 'pässword')).toBe(expected);
    // Computed with `openssl dgst -sha1 -binary | base64`, apart from node:crypto.
    expect(passwordDigest(nonce, created, 'secret')).toBe('btoPAllrPg1B7Q95fufnekyFiYM=');
  });

  it('puts the digest, the base64 nonce and a whole-second UTC Created in the header', () => {
    const header = usernameTokenHeader('admin<&>', 'secret', { nonce, now });
    const digest = createHash('sha1').update(nonce).update('2026-03-01T12:34:56Z').update('secret').digest('base64');
    expect(xmlText(header, 'Username')).toBe('admin<&>');
    expect(header).not.toContain('admin<&>');
    expect(xmlText(header, 'Password')).toBe(digest);
    expect(xmlAttribute(xmlElements(header, 'Password')[0]?.attributes ?? '', 'Type')).toMatch(/#PasswordDigest$/);
    expect(xmlText(header, 'Nonce')).toBe('AAECAwQFBgcICQoLDA0ODw==');
    expect(xmlText(header, 'Created')).toBe('2026-03-01T12:34:56Z');
    expect(header).not.toContain('secret');
  });

  it('uses a fresh nonce each time', () => {
    expect(xmlText(usernameTokenHeader('a', 'b'), 'Nonce')).not.toBe(xmlText(usernameTokenHeader('a', 'b'), 'Nonce'));
  });
});

describe('XML helpers', () => {
  it('round-trips escaped text, numeric references included', () => {
    const value = `a&b<c>"d'e`;
    expect(unescapeXml(escapeXml(value))).toBe(value);
    expect(unescapeXml('&#x41;&#66;&amp;amp;&#x110000;')).toBe('AB&amp;&#x110000;');
  });

  it('finds elements by local name whatever their prefix, self-closing ones included', () => {
    const xml = '<a:Root><b:Item token="1">one</b:Item><Item token=\'2\'/><c:ItemList>x</c:ItemList><Item>three</Item></a:Root>';
    expect(xmlElements(xml, 'Item').map((item) => [xmlAttribute(item.attributes, 'token'), item.inner])).toEqual([
      ['1', 'one'],
      ['2', ''],
      [undefined, 'three'],
    ]);
    expect(xmlText(xml, 'Missing')).toBeUndefined();
  });

  it('stays fast on many unclosed start tags', () => {
    const xml = '<Uri>'.repeat(50_000);
    const started = Date.now();
    expect(xmlElements(xml, 'Uri')).toEqual([]);
    expect(Date.now() - started).toBeLessThan(500);
  });
});
