/**
 * Imports a user's config file — TypeScript or JavaScript — on the Node running
 * loopgate. Node strips erasable TypeScript itself; what it does not do is find
 * `./agent.ts` when the code imports `./agent.js` (what `tsc` users write), or
 * an extensionless `./agent`. A resolve hook, for the user's own files only (not
 * node_modules), tries the TypeScript file when the JavaScript one is missing.
 */
import { existsSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { TIMED_OUT, withinRealTime } from '../harness/world/load-limit.ts';
import { ESM_IN_COMMONJS_WARNING } from './commonjs-package.ts';

let registered = false;

/** The module did not finish loading within the limit (its import goes on, unawaited). */
export class LoadTimeout extends Error {
  readonly limitMs: number;
  constructor(limitMs: number) {
    super(`did not finish loading within ${limitMs} ms`);
    this.name = 'LoadTimeout';
    this.limitMs = limitMs;
  }
}

const TS_FOR: Readonly<Record<string, readonly string[]>> = { '.js': ['.ts', '.tsx'], '.mjs': ['.mts'], '.cjs': ['.cts'], '': ['.ts', '.tsx', '/index.ts'] };

function typescriptTwin(specifier: string, parentURL: string | undefined): string | undefined {
  if (!parentURL?.startsWith('file:') || parentURL.includes('/node_modules/')) return undefined;
  if (!specifier.startsWith('./') && !specifier.startsWith('../') && !specifier.startsWith('/') && !specifier.startsWith('file:')) return undefined;
  const url = new URL(specifier, parentURL);
  const path = fileURLToPath(url);
  const ext = /\.(c|m)?js$/.exec(path)?.[0] ?? (/\.[A-Za-z0-9]+$/.test(path) ? undefined : '');
  if (ext === undefined) return undefined;
  const stem = ext ? path.slice(0, -ext.length) : path;
  for (const candidate of TS_FOR[ext] ?? []) {
    const file = `${stem}${candidate}`;
    if (existsSync(file)) return pathToFileURL(file).href;
  }
  return undefined;
}

function ensureHook(): void {
  if (registered) return;
  registered = true;
  registerHooks({
    resolve(specifier, context, nextResolve) {
      try {
        return nextResolve(specifier, context);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw error;
        const twin = typescriptTwin(specifier, context.parentURL);
        if (!twin) throw error;
        return nextResolve(twin, context);
      }
    },
  });
}

/**
 * The module's namespace (its default export is the config). A module whose
 * top-level await never settles leaves nothing to run: Node would end the
 * process with its own warning and exit code 13. Here that is an error naming
 * the file (`onNeverSettles`, told once the event loop is empty).
 */
export async function importUserModule(file: string, onNeverSettles?: () => void, limitMs?: number): Promise<Record<string, unknown>> {
  ensureHook();
  let settled = false;
  const watch = () => {
    if (!settled) onNeverSettles?.();
  };
  process.once('beforeExit', watch);
  // Node warns on stderr before a CommonJS project's ES module config fails; loopgate's one line says it better.
  // While the module loads, that one warning is held back; every other reaches the listeners as before.
  const listeners = process.listeners('warning');
  const filter = (warning: Error) => {
    if (warning?.message?.startsWith(ESM_IN_COMMONJS_WARNING)) return;
    for (const listener of listeners) listener(warning);
  };
  process.removeAllListeners('warning');
  process.on('warning', filter);
  try {
    const loading = import(pathToFileURL(file).href) as Promise<Record<string, unknown>>;
    if (limitMs === undefined) return await loading;
    // A top-level await on a timer or socket keeps the event loop alive: only a real-time limit ends the wait.
    const loaded = await withinRealTime(loading, limitMs);
    if (loaded === TIMED_OUT) throw new LoadTimeout(limitMs);
    return loaded;
  } finally {
    settled = true;
    process.off('warning', filter);
    for (const listener of listeners) process.on('warning', listener);
    process.off('beforeExit', watch);
  }
}
