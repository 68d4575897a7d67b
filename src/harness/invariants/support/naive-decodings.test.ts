import { describe, expect, it } from 'vitest';
import { NaiveDecodings } from './naive-decodings.ts';

const SECRET = 'sk_live_4eC39HqLyjWDarjtT1zdp7dc';
const b64 = (text: string) => Buffer.from(text, 'latin1').toString('base64');

describe('invariant 15: the naive search of a text', () => {
  it('finds a secret as it is, escaped, and base64-encoded at each of the four offsets', () => {
    expect(new NaiveDecodings(`x ${SECRET} y`).formOf(SECRET)).toBe('as it is');
    expect(new NaiveDecodings(`q=${encodeURIComponent(`k=${SECRET}`).replaceAll('_', '%5F')}`).formOf(SECRET)).toBe('escaped (%HH, \\uHHHH or JSON)');
    const unicode = [...SECRET].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
    expect(new NaiveDecodings(`{"a":"${unicode}"}`).formOf(SECRET)).toBe('escaped (%HH, \\uHHHH or JSON)');
    expect(new NaiveDecodings(`{"a":"\\\\u0073${SECRET.slice(1)}"}`).formOf(SECRET)).toBe('escaped (%HH, \\uHHHH or JSON)'); // an escape escaped again
    const twice = encodeURIComponent(encodeURIComponent(`k=${SECRET}`).replaceAll('_', '%5F'));
    expect(new NaiveDecodings(`q=${twice}`).formOf(SECRET)).toBe('escaped (%HH, \\uHHHH or JSON)'); // URL-encoded twice
    const quoted = 'Xk29L"mqZp"8W\\kDv/7t'; // a password holding quotes and a backslash
    expect(new NaiveDecodings(JSON.stringify({ password: quoted })).formOf(quoted)).toBe('escaped (%HH, \\uHHHH or JSON)');
    expect(new NaiveDecodings(JSON.stringify(JSON.stringify({ password: quoted }))).formOf(quoted)).toBe('escaped (%HH, \\uHHHH or JSON)'); // stringified twice
    for (const before of ['', 'a', 'ab', 'abc', 'abcd']) {
      const encoded = b64(`${before}${SECRET}!`);
      for (const cut of [0, 1, 2, 3]) {
        const text = `"id":"${'x'.repeat(cut)}${encoded}"`;
        expect(new NaiveDecodings(text).formOf(SECRET), `${before.length} bytes before, ${cut} characters cut`).toBe('base64-encoded');
      }
      const urlSafe = encoded.replaceAll('+', '-').replaceAll('/', '_');
      expect(new NaiveDecodings(`[${urlSafe}]`).formOf(SECRET)).toBe('base64-encoded');
    }
  });

  it('finds a secret outside ASCII URL-encoded as UTF-8 (or latin1), \\u-escaped, base64- and hex-encoded', () => {
    const secret = 'Pw~~>>??-9f8e7d6c-Ωmega';
    expect(new NaiveDecodings(`pw=${encodeURIComponent(secret)}&x`).formOf(secret)).toBe('escaped (%HH, \\uHHHH or JSON)');
    expect(new NaiveDecodings(`pw=Gr%F6%DFe-Passwort`).formOf('Größe-Passwort')).toBe('escaped (%HH, \\uHHHH or JSON)');
    expect(new NaiveDecodings(`{"pw":"Pw~~>>??-9f8e7d6c-\\u03a9mega"}`).formOf(secret)).toBe('escaped (%HH, \\uHHHH or JSON)');
    expect(new NaiveDecodings(Buffer.from(`user:${secret}`, 'utf8').toString('base64')).formOf(secret)).toBe('base64-encoded');
    expect(new NaiveDecodings(Buffer.from(secret, 'utf8').toString('hex')).formOf(secret)).toBe('hex-encoded');
    // A secret all of whose characters are latin1, encoded from its latin1 bytes (ü as the one byte FC).
    const latin1 = 'Schlüssel-2718-Ahorn';
    expect(new NaiveDecodings(Buffer.from(`pw=${latin1}`, 'latin1').toString('base64')).formOf(latin1)).toBe('base64-encoded');
    expect(new NaiveDecodings(Buffer.from(latin1, 'latin1').toString('hex').toUpperCase()).formOf(latin1)).toBe('hex-encoded');
    expect(new NaiveDecodings(Buffer.from('Schlussel-2718-Ahorn', 'latin1').toString('base64')).formOf(latin1)).toBeUndefined();
  });

  it('finds a secret that itself holds a %HH sequence, URL-encoded once or twice (the round that reveals it kept)', () => {
    const secret = 'harbor%2Aquay-5521-fern';
    expect(new NaiveDecodings(`key=${encodeURIComponent(secret)}&v=2`).formOf(secret)).toBe('escaped (%HH, \\uHHHH or JSON)');
    expect(new NaiveDecodings(`key=${encodeURIComponent(encodeURIComponent(secret))}`).formOf(secret)).toBe('escaped (%HH, \\uHHHH or JSON)');
    expect(new NaiveDecodings('key=harbor*quay-5521-fern').formOf(secret)).toBeUndefined();
  });

  it('reads URL-safe base64 (- and _ for + and /) as well as the standard alphabet', () => {
    const secret = 'pass?word~key>>?end'; // its base64 holds + and / at every offset
    for (const before of ['', 'a', 'ab']) {
      const urlSafe = b64(`${before}${secret}`).replaceAll('+', '-').replaceAll('/', '_');
      expect(urlSafe).toMatch(/[-_]/);
      expect(new NaiveDecodings(`"${urlSafe}"`).formOf(secret), urlSafe).toBe('base64-encoded');
    }
  });

  it('reads hex, lower and upper case, at either offset of a run, and not a run of fewer than 16 digits', () => {
    const hex = Buffer.from(`7;${SECRET}`, 'utf8').toString('hex');
    expect(new NaiveDecodings(`sig=${hex}`).formOf(SECRET)).toBe('hex-encoded');
    expect(new NaiveDecodings(`sig=${hex.toUpperCase()}`).formOf(SECRET)).toBe('hex-encoded');
    expect(new NaiveDecodings(`sig=a${hex}`).formOf(SECRET)).toBe('hex-encoded'); // one digit before: offset 1
    const short = Buffer.from('12345678', 'utf8').toString('hex'); // exactly 16 digits
    expect(new NaiveDecodings(`(${short})`).formOf('12345678')).toBe('hex-encoded');
    expect(new NaiveDecodings(`(${short.slice(0, 15)})`).formOf('12345678')).toBeUndefined();
  });

  it('finds nothing in a text that does not hold the secret, and several secrets in one text', () => {
    const decodings = new NaiveDecodings(`${b64('hello there, nothing here')} %41%42 \\u0041 ${b64('second:passphrase-42')}`);
    expect(decodings.formOf(SECRET)).toBeUndefined();
    expect(decodings.formOf('passphrase-42')).toBe('base64-encoded');
    expect(decodings.formOf('AB A')).toBeUndefined(); // under 8 characters: only as it is
  });

  it('decodes only runs of 12 or more base64 characters, and a secret of fewer than 8 only as it is', () => {
    const short = b64('12345678').slice(0, 11); // 11 characters
    expect(new NaiveDecodings(`(${short})`).formOf('12345678')).toBeUndefined();
    expect(new NaiveDecodings(`(${b64('x12345678')})`).formOf('12345678')).toBe('base64-encoded'); // exactly 12
    expect(new NaiveDecodings(`(${b64('x12345678y')})`).formOf('12345678')).toBe('base64-encoded');
    expect(new NaiveDecodings(`(${b64('x1234567y')})`).formOf('1234567')).toBeUndefined();
  });

  it('a secret holding the separator between decoded pieces is searched piece by piece', () => {
    const secret = 'ab\u0000cdefgh';
    expect(new NaiveDecodings(`${b64(`zz${secret}zz`)}`).formOf(secret)).toBe('base64-encoded');
    expect(new NaiveDecodings(`${b64('zzzzab')}.${b64('cdefghzz')}`).formOf(secret)).toBeUndefined();
  });
});
