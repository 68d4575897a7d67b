import { describe, expect, it } from 'vitest';
import { StoreError } from './event-store.ts';
import { checkPostgresUrl, describeConnectError, isPostgresUrl, maskPostgresUrl, scrub } from './postgres-store-url.ts';

describe('maskPostgresUrl', () => {
  it('masks the password and keeps everything else', () => {
    expect(maskPostgresUrl('postgres://loopgate:s3cret@127.0.0.1:5999/db')).toBe('postgres://loopgate:****@127.0.0.1:5999/db');
    expect(maskPostgresUrl('postgresql://u:p%40ss%2Fw@db.internal/agents?sslmode=require')).toBe('postgresql://u:****@db.internal/agents?sslmode=require');
  });

  it('masks a password given as a query parameter', () => {
    expect(maskPostgresUrl('postgres://u@h/db?password=s3cret&sslmode=disable')).toBe('postgres://u@h/db?password=****&sslmode=disable');
    expect(maskPostgresUrl('postgres://u@h/db?sslpassword=s3cret')).toBe('postgres://u@h/db?sslpassword=****');
  });

  it('leaves a URL without a password as it is', () => {
    expect(maskPostgresUrl('postgres://u@h:5432/db')).toBe('postgres://u@h:5432/db');
    expect(maskPostgresUrl('postgres://h/db')).toBe('postgres://h/db');
  });

  it('masks the password of a string that is not a valid URL', () => {
    const masked = maskPostgresUrl('postgres://u:s3cret@h:notaport/db?password=other');
    expect(masked).toBe('postgres://u:****@h:notaport/db?password=****');
    expect(masked).not.toMatch(/s3cret|other/);
  });
});

describe('checkPostgresUrl', () => {
  it('returns the masked URL of a good one', () => {
    expect(checkPostgresUrl('postgres://u:pw@h/db')).toBe('postgres://u:****@h/db');
    expect(checkPostgresUrl('postgres://u@h?dbname=agents')).toBe('postgres://u@h?dbname=agents');
  });

  it('refuses other schemes, missing databases, non-strings and garbage, masking the password', () => {
    expect(() => checkPostgresUrl('mysql://u:pw@h/db')).toThrow(StoreError);
    expect(() => checkPostgresUrl('http://u:pw@h/db')).toThrow('http://u:****@h/db: not a PostgreSQL URL');
    expect(() => checkPostgresUrl('postgres://u:pw@h/')).toThrow('postgres://u:****@h/: the URL names no database');
    expect(() => checkPostgresUrl('')).toThrow(/non-empty string/);
    expect(() => checkPostgresUrl(undefined)).toThrow(/non-empty string/);
    expect(() => checkPostgresUrl('not a url')).toThrow('not a url: not a valid URL');
  });

  it('recognizes PostgreSQL URLs among paths', () => {
    expect(isPostgresUrl('postgres://h/db')).toBe(true);
    expect(isPostgresUrl('POSTGRESQL://h/db')).toBe(true);
    expect(isPostgresUrl('./agent.db')).toBe(false);
    expect(isPostgresUrl('postgres.db')).toBe(false);
  });
});

describe('describeConnectError', () => {
  it('says what went wrong in words', () => {
    expect(describeConnectError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }), 5000)).toMatch(/^connection refused/);
    expect(describeConnectError(Object.assign(new Error('getaddrinfo ENOTFOUND db'), { code: 'ENOTFOUND' }), 5000)).toMatch(/^host not found/);
    expect(describeConnectError(new Error('Connection terminated due to connection timeout'), 1500)).toBe('no answer within 1500 ms (connect timeout)');
    expect(describeConnectError(Object.assign(new Error('password authentication failed for user "u"'), { code: '28P01' }), 5000)).toBe(
      'authentication failed: password authentication failed for user "u"',
    );
  });

  it('reads the first cause of an AggregateError (localhost on IPv4 and IPv6)', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED ::1:5432'), { code: 'ECONNREFUSED' });
    expect(describeConnectError(new AggregateError([refused, refused], ''), 5000)).toMatch(/^connection refused/);
  });

  it('never repeats the password, plain or URL-encoded', () => {
    expect(describeConnectError(new Error('bad thing near p@ss/w and p%40ss%2Fw'), 5000, 'p@ss/w')).toBe('bad thing near **** and ****');
    expect(scrub('nothing to hide', '')).toBe('nothing to hide');
  });
});
