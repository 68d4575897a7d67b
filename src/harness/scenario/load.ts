/**
 * Loading scenario files: YAML validated against the scenario schema, errors
 * naming the file, the line and the field. Discovery takes regular files only
 * (a FIFO, device or socket named `*.yaml` is an error naming it, never read),
 * each file once however the paths given overlap, and every file is read
 * bounded and strictly UTF-8.
 */
import { readdirSync, realpathSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { errnoText, fileKind, isMarkedOutput, readInputFile } from '../../files/index.ts';
import { InputError } from '../../kernel/index.ts';
import { loadYaml, loadYamlPartly } from '../../yaml/load-yaml.ts';
import { YAML_LIMITS } from '../../yaml/limits.ts';
import { scenarioSchema, type Scenario } from './schema.ts';

export interface LoadedScenario {
  /** Stable id: the path below the scenarios root, without the extension. */
  readonly id: string;
  readonly file: string;
  readonly scenario: Scenario;
}

/**
 * One or more scenario files cannot be used; one line per problem, each naming its file. `secrets`: what the files
 * read declare as their own secrets (`secrets:`, `secretsOnReopen:`) — a line may name one (a file named after its
 * key, a tool or a message id holding it), so whatever prints the message redacts them first (outside probe 39, F4).
 */
export class ScenarioFileError extends InputError {
  readonly secrets: readonly string[];
  constructor(message: string, secrets: readonly string[] = []) {
    super(message);
    this.name = 'ScenarioFileError';
    this.secrets = secrets;
  }
}

/** The secrets a scenario file declares as its own: every text in its `secrets:` and `secretsOnReopen:` lists, even a list at fault. */
function ownSecrets(raw: unknown): string[] {
  if (raw === null || typeof raw !== 'object') return [];
  const lists = [(raw as Record<string, unknown>).secrets, (raw as Record<string, unknown>).secretsOnReopen];
  return lists.flatMap((list) => (Array.isArray(list) ? list.filter((s): s is string => typeof s === 'string' && s.length > 0) : []));
}

export function parseScenario(text: string, file: string): Scenario {
  return loadYaml(text, scenarioSchema, file);
}

export function loadScenarioFile(file: string, root: string): LoadedScenario {
  const shown = relative(process.cwd(), file) || file;
  const text = readInputFile(shown, { what: 'scenario file', maxBytes: YAML_LIMITS.bytes });
  const scenario = parseScenario(text, shown);
  const rel = relative(root, file).split(sep).join('/');
  return { id: rel.replace(/\.ya?ml$/, ''), file: shown, scenario };
}

/**
 * Scenario files under a path (a file, or a directory searched recursively for
 * `*.yaml` / `*.yml`, skipping `node_modules`, dot folders and folders marked as
 * loopgate's output — a fuzz run's counterexamples), sorted. Whatever
 * is named like a scenario file is listed, so that loading it names what is
 * wrong with it (a FIFO, a device, a dangling link) rather than skipping it.
 */
export function findScenarioFiles(path: string): string[] {
  const abs = resolve(path);
  let stat;
  try {
    stat = statSync(abs);
  } catch (error) {
    // A link loop is listed by `ls`: "no such file" told the user it was not there (outside probe 14, CLI-2).
    const code = (error as NodeJS.ErrnoException).code;
    throw new ScenarioFileError(`${path}: ${code === undefined || code === 'ENOENT' ? 'no such file or directory' : errnoText(error)}`);
  }
  // A file named outright is read as a scenario only when it is named like one: notes.md said "expected object".
  if (stat.isFile()) {
    if (!/\.ya?ml$/i.test(abs)) throw new ScenarioFileError(`${path}: not a scenario file: scenario files end in .yaml or .yml`);
    return [abs];
  }
  if (!stat.isDirectory()) throw new ScenarioFileError(`${path}: is ${fileKind(stat)}; give scenario files (.yaml) or directories holding them`);
  const out: string[] = [];
  const walk = (dir: string) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (error) {
      throw new ScenarioFileError(
        `${relative(process.cwd(), dir) || dir}: cannot list the directory: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      );
    }
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) {
        // loopgate's own output (a fuzz run's counterexamples) is not part of the suite it sits in; named, it is read.
        if (entry.name !== 'node_modules' && !entry.name.startsWith('.') && !isMarkedOutput(full)) walk(full);
      } else if (/\.ya?ml$/.test(entry.name)) out.push(full);
    }
  };
  walk(abs);
  return out;
}

/** The scenario files under all the paths, each once (paths may overlap: `run d d`, `run d d/x.yaml`), in order of first mention. */
export function scenarioFilesUnder(paths: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const path of paths) {
    for (const file of findScenarioFiles(path)) {
      let identity: string;
      try {
        identity = realpathSync(file);
      } catch {
        identity = file; // a dangling link: loading it says so
      }
      if (seen.has(identity)) continue;
      seen.add(identity);
      out.push(file);
    }
  }
  return out;
}

/** Loads every scenario under the paths; all problems are collected and thrown together, one line each. */
export function loadScenarios(paths: readonly string[], root: string): LoadedScenario[] {
  const { loaded, problems, secrets } = readScenarios(scenarioFilesUnder(paths), root);
  if (problems.length > 0) throw new ScenarioFileError(problems.join('\n'), secrets);
  return [...loaded];
}

/** Scenario files read for checking: their problems, one line each, and what of each is a valid scenario (see readScenarioFile). */
export interface ReadScenarios {
  readonly loaded: readonly LoadedScenario[];
  readonly problems: readonly string[];
  /** The secrets every file read declares as its own, faulty files' included (for redacting the problems). */
  readonly secrets: readonly string[];
}

/**
 * Reads every file: each one's problems, and the scenario — or, when the file
 * has problems, the valid remainder of it (its faulty keys left out), so the
 * checks against the agents and the config can still report theirs in the same
 * pass. A file with problems is never run: its remainder is for checking only.
 */
export function readScenarios(files: readonly string[], root: string): ReadScenarios {
  const loaded: LoadedScenario[] = [];
  const problems: string[] = [];
  const secrets = new Set<string>();
  for (const file of files) {
    try {
      const read = readScenarioFile(file, root);
      if (read.loaded) loaded.push(read.loaded);
      for (const s of read.secrets) secrets.add(s);
      if (read.problems) problems.push(read.problems);
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      problems.push(error.message);
    }
  }
  return { loaded, problems, secrets: [...secrets] };
}

/** One file read for checking: its schema problems (one string, a line each) and the scenario or its valid remainder. */
function readScenarioFile(file: string, root: string): { loaded: LoadedScenario | undefined; problems: string | undefined; secrets: string[] } {
  const shown = relative(process.cwd(), file) || file;
  const text = readInputFile(shown, { what: 'scenario file', maxBytes: YAML_LIMITS.bytes });
  const { data, error, raw } = loadYamlPartly(text, scenarioSchema, shown);
  const rel = relative(root, file).split(sep).join('/');
  return {
    loaded: data ? { id: rel.replace(/\.ya?ml$/, ''), file: shown, scenario: data } : undefined,
    problems: error?.message,
    secrets: ownSecrets(raw),
  };
}
