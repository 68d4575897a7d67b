/**
 * Recording what the APIs really send: the SDKs ask for gzip, so responses come
 * compressed. The recording holds the decoded body (scrubbed), replays offline
 * with the same results, and holds no key in any form — literal, URL-encoded,
 * JSON \u-escaped or base64 — even though the stand-in echoes the key back in
 * each of those forms.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIVE_CASES } from '../../providers/contract-suite/live-cases.ts';
import { recordLive } from '../../providers/recording/record.ts';
import { replayRecording } from '../../providers/recording/replay.ts';
import { leakedSecrets } from '../../providers/recording/scrub.ts';
import type { WireProvider } from '../../providers/names.ts';
import { type Encoding, jsonEscapedEverywhere, type StandIn, startStandIn } from '../support/stand-in-api.ts';

// With characters URL-encoding changes, so its URL-encoded form differs from the literal one.
const KEY = 'sk-ant-api03-Encoded+Recording/Secret=0123456789abcdef~XYZ';

/** Every form of the key a leak could take, each checked on its own. */
function encodedForms(key: string): Record<string, string[]> {
  const base64 = (s: string, alphabet: 'base64' | 'base64url' = 'base64') => Buffer.from(s).toString(alphabet);
  return {
    literal: [key],
    'URL-encoded': [encodeURIComponent(key), encodeURIComponent(encodeURIComponent(key)), [...key].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('')],
    'JSON \\u-escaped': [jsonEscapedEverywhere(key), jsonEscapedEverywhere(key).replace(/\\/g, '\\\\')],
    // Inside longer values too, at each of the three byte alignments.
    base64: [base64(key), base64(`user:${key}`), base64(`a${key}b`), base64(`ab${key}`, 'base64url')],
    distinctive: ['Encoded+Recording/Secret'],
  };
}

describe.each<Encoding>(['gzip', 'br', 'deflate'])('a %s-encoded recording', (encoding) => {
  let standIn: StandIn;
  beforeAll(async () => {
    standIn = await startStandIn({ encoding, echoEncodedKey: true });
  });
  afterAll(() => standIn.close());

  it.each<WireProvider>(['anthropic', 'openai-chat', 'openai-responses'])(
    '%s: stores decoded bodies with no key in any encoding, and replays them',
    async (provider) => {
      const baseURL = provider === 'anthropic' ? standIn.origin : `${standIn.origin}/v1`;
      const { recording, reports } = await recordLive({ provider, model: 'stand-in', apiKey: KEY, baseURL }, { secrets: [KEY] });
      expect(standIn.seenKeys).toContain(KEY); // there was something to leak
      expect(reports.map((r) => [r.id, r.status])).toEqual(LIVE_CASES.map((c) => [c.id, 'pass']));

      const text = JSON.stringify(recording);
      for (const [form, values] of Object.entries(encodedForms(KEY))) {
        for (const value of values) expect(text.includes(value), `${form} form ${value} in the recording`).toBe(false);
      }
      // Stored decoded, as what the SDK parsed: no encoding left to describe.
      for (const exchange of recording.exchanges) {
        expect(Object.keys(exchange.rawHeaders ?? {}).map((h) => h.toLowerCase())).not.toContain('content-encoding');
        expect(JSON.stringify(exchange.response)).not.toMatch(/^\["[0-9a-f]+"/);
      }

      // Offline, no network, a different key: the same results.
      await standIn.close();
      const replayed = await replayRecording(recording);
      standIn = await startStandIn({ encoding, echoEncodedKey: true });
      expect(replayed.map((r) => [r.id, r.status, r.reason ?? ''])).toEqual(LIVE_CASES.map((c) => [c.id, 'pass', '']));
    },
  );
});

describe('leakedSecrets', () => {
  it('finds a key in each encoded form, and not in text without it', () => {
    for (const [form, values] of Object.entries(encodedForms(KEY))) {
      if (form === 'distinctive') continue; // a part of the key, for the recording check only
      for (const value of values) expect(leakedSecrets(`prefix ${value} suffix`, [KEY]), `${form}: ${value}`).toEqual([0]);
    }
    expect(leakedSecrets('nothing secret here, just sk-ant-api03 and base64 of other things', [KEY])).toEqual([]);
  });
});
