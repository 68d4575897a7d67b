/**
 * `loopgate contract [--provider NAME]... [--live] [--record DIR] [--replay DIR] [--model M] [--json]`
 *
 * Runs the shared ModelClient contract suite and lists each case per provider
 * (pass, fail, or skip with the reason):
 * - default: against the wire-level fakes (and the in-process fake);
 * - `--live`: the live-capable cases against the real API, for providers whose
 *   key is in the environment (ANTHROPIC_API_KEY / OPENAI_API_KEY); others are
 *   skipped, saying so;
 * - `--record DIR`: like --live, storing each provider's exchanges (secrets scrubbed)
 *   in DIR/<provider>.recording.json;
 * - `--replay DIR`: the live cases offline, against those recordings.
 * Exit 0 when nothing failed, 1 on failures, 2 on usage errors.
 */
import { API_KEY_ENV, BASE_URL_ENV } from '../../../providers/clients.ts';
import { runContract, type CaseReport } from '../../../providers/contract-suite/runner.ts';
import { createScriptedHarness } from '../../../providers/contract-suite/scripted-harness.ts';
import { createWireHarness } from '../../../providers/contract-suite/wire-harness.ts';
import { LIVE_CASES } from '../../../providers/contract-suite/live-cases.ts';
import { PROVIDER_NAMES, isProviderName, isWireProvider, type ProviderName, type WireProvider } from '../../../providers/names.ts';
import { runLiveCases } from '../../../providers/recording/live.ts';
import { recordLive, writeRecording } from '../../../providers/recording/record.ts';
import { RecordingError, readRecording, recordedProviders, requireDirectory } from '../../../providers/recording/recording-file.ts';
import { replayRecording } from '../../../providers/recording/replay.ts';
import { checkOutputPath, ensureDirectory } from '../../files/index.ts';
import { underCi } from '../../harness/ci.ts';
import { InputError } from '../../kernel/index.ts';
import { jsonForTerminal, printable, printableLines } from '../../report/terminal-text.ts';
import { EXIT } from '../exit-codes.ts';
import { UsageError } from '../usage-error.ts';

export interface ContractArgs {
  provider?: string[] | string;
  live?: boolean;
  record?: string;
  replay?: string;
  model?: string;
  json?: boolean;
}

export interface ContractIO {
  out(line: string): void;
  err(line: string): void;
  env: NodeJS.ProcessEnv;
}

/** Models the live cases use unless --model says otherwise: small and current. */
export const LIVE_MODELS: Readonly<Record<WireProvider, string>> = {
  anthropic: 'claude-haiku-4-5',
  'openai-chat': 'gpt-5.4-mini',
  'openai-responses': 'gpt-5.4-mini',
};

const DEFAULT_BASE_URLS: Readonly<Record<WireProvider, string>> = {
  anthropic: 'https://api.anthropic.com',
  'openai-chat': 'https://api.openai.com/v1',
  'openai-responses': 'https://api.openai.com/v1',
};

function parseProviders(raw: string[] | string | undefined): ProviderName[] | undefined {
  if (raw === undefined) return undefined;
  const names = (Array.isArray(raw) ? raw : [raw])
    .flatMap((s) => String(s).split(','))
    .map((s) => s.trim())
    .filter(Boolean);
  for (const name of names) {
    if (!isProviderName(name)) throw new UsageError(`unknown provider "${name}"; known providers: ${PROVIDER_NAMES.join(', ')}`);
  }
  return [...new Set(names as ProviderName[])];
}

interface Section {
  readonly heading: string;
  readonly reports: CaseReport[];
}

function line(report: CaseReport): string {
  const status = report.status.toUpperCase().padEnd(4);
  const base = `  ${status} ${report.id} — ${report.title}`;
  if (report.status === 'skip') return `${base} (skipped: ${report.reason})`;
  if (report.status === 'fail') return `${base}\n         ${report.reason?.replace(/\n/g, '\n         ')}`;
  return base;
}

function tally(reports: readonly CaseReport[]): string {
  const count = (s: string) => reports.filter((r) => r.status === s).length;
  return `${count('pass')} passed, ${count('fail')} failed, ${count('skip')} skipped`;
}

export async function contract(args: ContractArgs, io: ContractIO): Promise<number> {
  const modes = [args.live || args.record !== undefined ? 'live' : undefined, args.replay !== undefined ? 'replay' : undefined].filter(Boolean);
  if (modes.length > 1) throw new UsageError('--replay runs offline: it cannot be combined with --live or --record');
  if (args.record !== undefined && args.record.trim() === '') throw new UsageError('--record needs a directory');
  if (args.replay !== undefined && args.replay.trim() === '') throw new UsageError('--replay needs a directory');
  const requested = parseProviders(args.provider);
  // A live run costs money: where its recording goes is settled before the first request —
  // made only when some provider will be recorded (one with its key); else only checked.
  if (args.record !== undefined) {
    const recordable = (requested ?? PROVIDER_NAMES).some((p) => isWireProvider(p) && io.env[API_KEY_ENV[p]]);
    if (recordable) ensureDirectory(args.record, 'recording directory');
    else checkOutputPath(args.record, 'recording directory', 'directory');
  }
  const sections: Section[] = [];
  const notes: string[] = [];

  const print = (section: Section) => {
    sections.push(section);
    if (args.json) return;
    io.out(printable(section.heading));
    // Reasons quote what a provider (or a recording) sent: shown, never sent to the terminal as escapes.
    for (const report of section.reports) io.out(printableLines(line(report)));
    io.out(`  ${tally(section.reports)}`);
  };
  const note = (text: string) => {
    notes.push(text);
    if (!args.json) io.out(text);
  };

  if (args.replay !== undefined) {
    const dir = args.replay;
    await requireDirectory(dir);
    const providers = requested ?? (await recordedProviders(dir));
    if (providers.length === 0) throw new RecordingError(`recording directory ${dir} holds no recordings (expected <provider>.recording.json files)`);
    // Read every recording first, so a bad one stops the run before anything is replayed.
    const recordings = [];
    for (const provider of providers) {
      if (!isWireProvider(provider))
        throw new UsageError(`${provider} has no API to record or replay; use a wire provider (${PROVIDER_NAMES.filter(isWireProvider).join(', ')})`);
      recordings.push(await readRecording(dir, provider));
    }
    for (const recording of recordings) {
      print({
        heading: `${recording.provider} (replaying ${dir}, model ${recording.model}, recorded ${recording.recordedAt})`,
        reports: await replayRecording(recording),
      });
    }
  } else if (args.live || args.record !== undefined) {
    // Under CI a live gate without its keys must not pass by skipping everything.
    const missing = [...new Set((requested ?? PROVIDER_NAMES).flatMap((p) => (isWireProvider(p) ? [API_KEY_ENV[p]] : [])).filter((k) => !io.env[k]))];
    if (underCi(io.env) && missing.length > 0) {
      throw new UsageError(`--live: ${missing.join(', ')} not set; under CI a live contract run needs its keys (set them as secrets of the job)`);
    }
    for (const provider of requested ?? PROVIDER_NAMES) {
      if (!isWireProvider(provider)) {
        note(`${provider}: no live API; skipped its live cases`);
        continue;
      }
      const keyVar = API_KEY_ENV[provider];
      const apiKey = io.env[keyVar];
      if (!apiKey) {
        note(`${provider}: skipped ${LIVE_CASES.length} live cases: ${keyVar} is not set`);
        continue;
      }
      const target = {
        provider,
        model: args.model ?? LIVE_MODELS[provider],
        apiKey,
        baseURL: io.env[BASE_URL_ENV[provider]] || DEFAULT_BASE_URLS[provider],
      };
      if (args.record !== undefined) {
        const { recording, reports } = await recordLive(target, { secrets: [apiKey] });
        const path = await writeRecording(args.record, provider, recording);
        print({ heading: `${provider} (live, model ${target.model}; recorded to ${path})`, reports });
      } else {
        print({ heading: `${provider} (live, model ${target.model})`, reports: await runLiveCases(target) });
      }
    }
  } else {
    for (const provider of requested ?? PROVIDER_NAMES) {
      const harness = provider === 'fake' ? createScriptedHarness() : createWireHarness(provider, args.model ? { adapter: { model: args.model } } : {});
      print({ heading: harness.name, reports: await runContract(harness) });
    }
  }

  const all = sections.flatMap((s) => s.reports);
  if (args.json) io.out(jsonForTerminal({ sections, notes }, 2));
  if (all.some((r) => r.status === 'fail')) return EXIT.failed;
  if (!all.some((r) => r.status === 'pass')) {
    io.err('loopgate contract: nothing was checked: every case was skipped');
    return EXIT.failed;
  }
  return EXIT.passed;
}

/** Runs the command, turning usage and recording problems into exit 2 with a message. */
export async function runContractCommand(args: ContractArgs, io: ContractIO): Promise<number> {
  try {
    return await contract(args, io);
  } catch (error) {
    if (error instanceof InputError) {
      io.err(`loopgate contract: ${printable(error.message)}`);
      return EXIT.usage;
    }
    throw error;
  }
}
