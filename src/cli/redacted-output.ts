/**
 * Everything the command prints passes one redactor: the secrets of the
 * environment (every `*_API_KEY`-like variable, in each of its encoded forms),
 * the credential shapes the kernel knows, and — once the config has loaded —
 * the secrets its agents declare, half of one included (`redactOutputAlso`).
 * Reports, stores and traces are redacted where they are written; this covers
 * what reaches the terminal from anywhere — progress lines, `replay`, `decode`,
 * `contract --replay`, errors (a scenario refused for an agent's secret pasted
 * in as a key) — so no command can print a key by forgetting to.
 */
import type { AgentRegistry } from '../harness/world/agent-under-test.ts';
import { createRedactor, REDACTED, redactSecretPieces, secretsFromEnv } from '../kernel/redact/index.ts';

let fromEnv: readonly string[] = [];
let declared: readonly string[] = [];
let redact: (text: string) => string = (text) => text;

function rebuild(): void {
  const base = createRedactor({ secrets: [...fromEnv, ...declared] });
  redact = declared.length === 0 ? base : (text) => redactSecretPieces(base(text), declared, REDACTED);
}

export function redactOutput(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv = process.env): void {
  fromEnv = secretsFromEnv(env);
  rebuild();
  const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
  stream.write = ((chunk: unknown, ...rest: unknown[]) => {
    if (typeof chunk === 'string') return write(redact(chunk), ...rest);
    if (chunk instanceof Uint8Array) {
      const encoding = typeof rest[0] === 'string' ? rest.slice(1) : rest; // a Buffer's encoding argument no longer applies
      return write(redact(Buffer.from(chunk).toString('utf8')), ...encoding);
    }
    return write(chunk, ...rest);
  }) as typeof stream.write;
}

/** From now on, what the command prints is redacted of these secrets too (and of any piece of one). */
export function redactOutputAlso(secrets: readonly string[]): void {
  const more = secrets.filter((s) => typeof s === 'string' && !declared.includes(s));
  if (more.length === 0) return;
  declared = [...declared, ...more];
  rebuild();
}

/** The secrets the config's agents declare, as the builds loopgate inspected when it loaded them. */
export function declaredSecrets(registry: AgentRegistry): string[] {
  return [...(registry.inspected?.values() ?? [])].flatMap((inspection) => inspection.agent?.secrets ?? []);
}
