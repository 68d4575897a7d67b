/**
 * `--record`: runs the live cases against the real API while nock's recorder
 * captures every exchange, then scrubs secrets and returns the recording.
 * nock is imported only here and in replay (it patches the network on import)
 * and is fully restored afterwards.
 */
import { ensureDirectory, writeFileAtomic } from '../../src/files/index.ts';
import type { WireProvider } from '../names.ts';
import { runLiveCases, type LiveCaseReport, type LiveTarget } from './live.ts';
import { RECORDING_FORMAT, RecordingError, recordingPath, type Recording } from './recording-file.ts';
import { leakedSecrets, scrubExchanges } from './scrub.ts';

/** How long to wait for the recorder to finish reading the last response body. */
const RECORDER_SETTLE_MS = 5_000;

export interface RecordOptions {
  /** Values that must never reach the recording (the API key at least). */
  readonly secrets: readonly string[];
  readonly onCase?: (report: LiveCaseReport) => void;
}

export async function recordLive(target: LiveTarget, options: RecordOptions): Promise<{ recording: Recording; reports: LiveCaseReport[] }> {
  const { default: nock } = await import('nock');
  nock.recorder.clear();
  nock.recorder.rec({ dont_print: true, output_objects: true, enable_reqheaders_recording: false });
  let responded = 0;
  // Resolves `fetch` at call time, so the recorder's patch is the one used.
  const countingFetch: typeof globalThis.fetch = async (input, init) => {
    const response = await globalThis.fetch(input, init);
    responded++;
    return response;
  };
  let reports: LiveCaseReport[];
  let raw: unknown[];
  try {
    reports = await runLiveCases({ ...target, fetch: countingFetch }, options.onCase);
    // The recorder reads each response body after the client did; wait for it.
    const deadline = Date.now() + RECORDER_SETTLE_MS;
    while ((nock.recorder.play() as unknown[]).length < responded && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    raw = nock.recorder.play() as unknown[];
  } finally {
    nock.restore();
    nock.recorder.clear();
  }
  const recording: Recording = {
    format: RECORDING_FORMAT,
    version: 1,
    provider: target.provider,
    model: target.model,
    baseURL: target.baseURL,
    recordedAt: new Date().toISOString(),
    cases: reports.map((r) => ({ id: r.id, status: r.status === 'pass' ? 'pass' : 'fail', result: { ...r.result } })),
    exchanges: scrubExchanges(raw, options.secrets) as Recording['exchanges'],
  };
  const leaks = leakedSecrets(JSON.stringify(recording), options.secrets);
  if (leaks.length > 0) throw new RecordingError(`refusing to write the ${target.provider} recording: a secret survived scrubbing`);
  return { recording, reports };
}

export async function writeRecording(dir: string, provider: WireProvider, recording: Recording): Promise<string> {
  ensureDirectory(dir, 'recording directory');
  const path = recordingPath(dir, provider);
  writeFileAtomic(path, `${JSON.stringify(recording, null, 2)}\n`, 'recording');
  return path;
}
