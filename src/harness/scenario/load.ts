/**
 * Loading scenario files: YAML validated against the scenario schema, errors
 * naming the file, the line and the field.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { loadYaml, YamlValidationError } from '../../yaml/load-yaml.ts';
import { scenarioSchema, type Scenario } from './schema.ts';

export interface LoadedScenario {
  /** Stable id: the path below the scenarios root, without the extension. */
  readonly id: string;
  readonly file: string;
  readonly scenario: Scenario;
}

export class ScenarioFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ScenarioFileError';
  }
}

export function parseScenario(text: string, file: string): Scenario {
  return loadYaml(text, scenarioSchema, file);
}

export function loadScenarioFile(file: string, root: string): LoadedScenario {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ScenarioFileError(`${file}: cannot read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const shown = relative(process.cwd(), file) || file;
  const scenario = parseScenario(text, shown);
  const rel = relative(root, file).split(sep).join('/');
  return { id: rel.replace(/\.ya?ml$/, ''), file: shown, scenario };
}

/** Scenario files under a path (a file or a directory, recursively), sorted. */
export function findScenarioFiles(path: string): string[] {
  const abs = resolve(path);
  let stat;
  try {
    stat = statSync(abs);
  } catch {
    throw new ScenarioFileError(`${path}: no such file or directory`);
  }
  if (stat.isFile()) return [abs];
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && !entry.name.startsWith('.')) walk(full);
      } else if (/\.ya?ml$/.test(entry.name)) out.push(full);
    }
  };
  walk(abs);
  return out;
}

/** Loads every scenario under the paths; all problems are collected and thrown together. */
export function loadScenarios(paths: readonly string[], root: string): LoadedScenario[] {
  const out: LoadedScenario[] = [];
  const problems: string[] = [];
  for (const path of paths) {
    for (const file of findScenarioFiles(path)) {
      try {
        out.push(loadScenarioFile(file, root));
      } catch (error) {
        problems.push(error instanceof YamlValidationError || error instanceof ScenarioFileError ? error.message : `${file}: ${(error as Error).message}`);
      }
    }
  }
  if (problems.length > 0) throw new ScenarioFileError(problems.join('\n'));
  return out;
}
