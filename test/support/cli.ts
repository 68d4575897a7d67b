/** Running the real `loopgate` binary from tests, and watching a directory for any change. */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');
/** Far above what any of these takes (a second or two): reaching it means the command hung. */
const HANG_MS = 30_000;

export interface CliResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly hung: boolean;
}

export function loopgate(args: readonly string[], cwd: string, env: Readonly<Record<string, string>> = {}): Promise<CliResult> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin/loopgate.js'), ...args], { cwd, env: { ...process.env, CI: 'true', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    let hung = false;
    const timer = setTimeout(() => {
      hung = true;
      child.kill('SIGKILL');
    }, HANG_MS);
    child.on('close', (status) => {
      clearTimeout(timer);
      done({ status, stdout, stderr, hung });
    });
  });
}

/** Every entry under `dir`: regular files by content hash, anything else by kind (a FIFO is never opened). */
export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (path: string, rel: string) => {
    const stat = lstatSync(path);
    if (stat.isDirectory()) {
      out[`${rel}/`] = `dir ${stat.mode.toString(8)}`;
      for (const name of readdirSync(path).sort()) walk(join(path, name), rel ? `${rel}/${name}` : name);
    } else if (stat.isFile()) out[rel] = createHash('sha256').update(readFileSync(path)).digest('hex');
    else if (stat.isSymbolicLink()) out[rel] = `link → ${readlinkSync(path)}`;
    else out[rel] = stat.isFIFO() ? 'fifo' : 'special';
  };
  walk(dir, '');
  return out;
}
