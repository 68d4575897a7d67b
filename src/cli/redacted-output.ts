/**
 * Everything the command prints passes one redactor: the secrets of the
 * environment (every `*_API_KEY`-like variable, in each of its encoded forms)
 * and the credential shapes the kernel knows. Reports, stores and traces are
 * redacted where they are written; this covers what reaches the terminal from
 * anywhere — progress lines, `replay`, `decode`, `contract --replay`, errors —
 * so no command can print a key by forgetting to.
 */
import { createRedactor, secretsFromEnv } from '../kernel/redact/index.ts';

export function redactOutput(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv = process.env): void {
  const redact = createRedactor({ secrets: secretsFromEnv(env) });
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
