/** The recording file: what `--record` writes and `--replay` reads, one per provider. */
import { existsSync, lstatSync, statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { errnoText, INPUT_LIMITS, readInputFile } from '../../src/files/index.ts';
import { InputError } from '../../src/kernel/index.ts';
import { WIRE_PROVIDERS, type WireProvider } from '../names.ts';
import { LIVE_CASES } from '../contract-suite/live-cases.ts';

export const RECORDING_FORMAT = 'loopgate-contract-recording';

const exchangeSchema = z
  .object({
    scope: z.string().min(1),
    method: z.string().min(1),
    path: z.string().min(1),
    status: z.number().int().min(100, 'expected an HTTP status (100–599)').max(599, 'expected an HTTP status (100–599)'),
    body: z.unknown().optional(),
    response: z.unknown().optional(),
    rawHeaders: z.record(z.string(), z.union([z.string(), z.array(z.string())])).optional(),
  })
  .loose();

const LIVE_CASE_IDS: ReadonlySet<string> = new Set(LIVE_CASES.map((c) => c.id));

export const recordingSchema = z
  .object({
    format: z.literal(RECORDING_FORMAT),
    version: z.literal(1),
    provider: z.enum(WIRE_PROVIDERS),
    model: z.string().min(1),
    baseURL: z.string().refine((url) => originOf(url) !== undefined, 'expected an http(s) URL'),
    recordedAt: z.string(),
    cases: z.array(z.object({ id: z.string().min(1), status: z.enum(['pass', 'fail']), result: z.record(z.string(), z.unknown()) })),
    exchanges: z.array(exchangeSchema),
  })
  .superRefine((recording, ctx) => {
    // A case this suite does not run (recorded by another version, or edited) would be passed over in silence.
    const seen = new Set<string>();
    recording.cases.forEach((recorded, index) => {
      const path = ['cases', index, 'id'];
      if (!LIVE_CASE_IDS.has(recorded.id)) {
        ctx.addIssue({
          code: 'custom',
          path,
          message: `${JSON.stringify(recorded.id)} is no live case of this suite (recorded by another version, or edited: record it again)`,
        });
      } else if (seen.has(recorded.id)) {
        ctx.addIssue({ code: 'custom', path, message: `${JSON.stringify(recorded.id)} is recorded twice` });
      }
      seen.add(recorded.id);
    });
    // Replay serves each exchange at its scope; one for another host than the cases call is never reached.
    const origin = originOf(recording.baseURL);
    if (origin === undefined) return;
    recording.exchanges.forEach((exchange, index) => {
      if (originOf(exchange.scope) !== origin) {
        ctx.addIssue({ code: 'custom', path: ['exchanges', index, 'scope'], message: `${exchange.scope} is not the origin of baseURL (${origin})` });
      }
    });
  });

/** `scheme://host:port` with the port spelled out, as nock writes scopes; undefined for anything but http(s). */
function originOf(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return undefined;
  const port = parsed.port || (parsed.protocol === 'https:' ? '443' : '80');
  return `${parsed.protocol}//${parsed.hostname}:${port}`;
}

export type Recording = z.infer<typeof recordingSchema>;

/** A recording directory or file that cannot be used: exit 2, naming the path and the problem. */
export class RecordingError extends InputError {
  constructor(message: string) {
    super(message);
    this.name = 'RecordingError';
  }
}

export function recordingPath(dir: string, provider: WireProvider): string {
  return join(dir, `${provider}.recording.json`);
}

export async function requireDirectory(dir: string): Promise<void> {
  let info;
  try {
    info = await stat(dir);
  } catch {
    throw new RecordingError(`recording directory ${dir} does not exist`);
  }
  if (!info.isDirectory()) throw new RecordingError(`recording directory ${dir} is not a directory`);
}

/** Providers with a recording file in `dir`. */
export async function recordedProviders(dir: string): Promise<WireProvider[]> {
  await requireDirectory(dir);
  const found: WireProvider[] = [];
  for (const provider of WIRE_PROVIDERS) {
    try {
      await stat(recordingPath(dir, provider));
      found.push(provider);
    } catch {
      // no recording for this provider
    }
  }
  return found;
}

export async function readRecording(dir: string, provider: WireProvider): Promise<Recording> {
  await requireDirectory(dir);
  const path = recordingPath(dir, provider);
  if (!existsSync(path)) {
    // existsSync is false for a link loop or a link to nothing too: only a missing file is "no recording".
    const problem = linkProblem(path);
    if (problem) throw new RecordingError(`${path}: cannot read the recording: ${problem}`);
    throw new RecordingError(`recording directory ${dir} has no recording for ${provider} (expected ${path}; make one with --record ${dir})`);
  }
  const text = readInputFile(path, { what: 'recording', maxBytes: INPUT_LIMITS.recordingBytes });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new RecordingError(`${path}: malformed recording, not valid JSON (${(error as Error).message})`);
  }
  const parsed = recordingSchema.safeParse(value);
  if (!parsed.success) {
    const problems = parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new RecordingError(`${path}: malformed recording: ${problems.join('; ')}`);
  }
  if (parsed.data.provider !== provider) {
    throw new RecordingError(`${path}: malformed recording: it is for ${parsed.data.provider}, not ${provider}`);
  }
  return parsed.data;
}

/** What is wrong with a path that exists as a link but cannot be followed (a loop, a link to nothing); else nothing. */
function linkProblem(path: string): string | undefined {
  try {
    lstatSync(path);
  } catch {
    return undefined; // missing
  }
  try {
    statSync(path);
    return undefined;
  } catch (error) {
    return errnoText(error);
  }
}
