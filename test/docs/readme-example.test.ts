/**
 * The README's "Gate your own agent" example runs as written: its
 * loopgate.config.ts, src/agent.ts and scenario are taken from the README's code
 * blocks (each opens with a comment naming its file), put in a project of their
 * own with the one file the README leaves to the reader (the Hotel), and gated by
 * the real `loopgate run`. A README that drifts from the product fails here.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'loopgate-readme-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The README's code blocks that name their file in a first-line comment. */
function exampleFiles(): Map<string, string> {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Gate your own agent'), readme.indexOf('\n## ', readme.indexOf('## Gate your own agent') + 5));
  const files = new Map<string, string>();
  for (const match of section.matchAll(/```(?:ts|yaml)\n(?:\/\/|#) ([\w./-]+)\n([\s\S]*?)```/g)) files.set(match[1]!, match[2]!);
  return files;
}

const HOTEL = `
export class Hotel {
  readonly #booked = new Map<string, string>();
  search(city: string) {
    return { city, rooms: ['A', 'B'].filter((r) => !this.#booked.has(r)) };
  }
  book(room: string, nights: number, idempotencyKey: string) {
    if (this.#booked.has(room)) throw new Error(\`room \${room} is taken\`);
    this.#booked.set(room, idempotencyKey);
    return { room, nights, booked: true };
  }
}
`;

describe('the README example', () => {
  it('names its files: the config, the agent and a scenario', () => {
    expect([...exampleFiles().keys()].sort()).toEqual(['loopgate.config.ts', 'scenarios/book-once.yaml', 'src/agent.ts']);
  });

  it('passes the gate as written', () => {
    const entry = join(ROOT, 'src/index.ts');
    for (const [path, text] of exampleFiles()) {
      const file = join(dir, path);
      mkdirSync(dirname(file), { recursive: true });
      // The project imports the package; here, the sources it is built from.
      writeFileSync(file, text.replaceAll("from 'loopgate'", `from ${JSON.stringify(entry)}`));
    }
    writeFileSync(join(dir, 'src/hotel.ts'), HOTEL);
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules')); // zod, as the project would have it
    const run = spawnSync(process.execPath, [join(ROOT, 'bin/loopgate.js'), 'run', '--reporter', 'console', '--out', join(dir, 'reports')], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, CI: 'true' },
    });
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toMatch(/PASSED: 2 of 2/);
  });
});
