/**
 * Secret redaction for what the model, the log and the trace see. Secrets never
 * reach logs, traces, recordings or reports.
 *
 * Two sources: well-known credential shapes (API keys, bearer tokens, private
 * keys), and exact values the host knows are secret (e.g. the provider API key).
 */

export type Redactor = (text: string) => string;

export const REDACTED = '[REDACTED]';

/** Credential shapes common enough to catch by pattern. */
export const DEFAULT_SECRET_PATTERNS: readonly RegExp[] = [
  /sk-ant-[A-Za-z0-9_-]{16,}/g, // Anthropic
  /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g, // OpenAI
  /\bBearer\s+[A-Za-z0-9._~+/=-]{16,}/g,
  /\bAKIA[0-9A-Z]{16}\b/g, // AWS access key id
  /\bgh[pousr]_[A-Za-z0-9]{30,}\b/g, // GitHub
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g, // Slack
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
];

/** Environment variable names whose values are treated as secrets. */
const SECRET_ENV_NAME = /(API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL)/i;

export function secretsFromEnv(env: NodeJS.ProcessEnv = process.env): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value && value.length >= 8 && SECRET_ENV_NAME.test(name)) out.push(value);
  }
  return out;
}

export function createRedactor(options: { secrets?: readonly string[]; patterns?: readonly RegExp[] } = {}): Redactor {
  const patterns = options.patterns ?? DEFAULT_SECRET_PATTERNS;
  // Longest first, so a secret that contains another is replaced whole.
  const secrets = [...new Set(options.secrets ?? [])].filter((s) => s.length >= 4).sort((a, b) => b.length - a.length);
  const anyPattern = unionOf(patterns);
  return (text: string) => {
    let out = text;
    for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    // Almost every string has no secret: one scan for all the shapes, instead of one per shape.
    if (anyPattern && !anyPattern.test(out)) return out;
    for (const pattern of patterns) {
      pattern.lastIndex = 0;
      if (pattern.test(out)) {
        pattern.lastIndex = 0;
        out = out.replace(pattern, REDACTED);
      }
    }
    return out;
  };
}

/**
 * One regex matching wherever any of `patterns` matches, used as a pre-check: if
 * it finds nothing, no pattern would. Only built when that holds by construction —
 * the same flags (besides `g`) and no back-references, whose group numbers would
 * shift in the union; otherwise undefined and every pattern runs.
 */
function unionOf(patterns: readonly RegExp[]): RegExp | undefined {
  if (patterns.length < 2) return undefined;
  const flags = patterns[0]!.flags.replace('g', '');
  if (flags.includes('y')) return undefined;
  for (const p of patterns) {
    if (p.flags.replace('g', '') !== flags || /\\[1-9]|\\k</.test(p.source)) return undefined;
  }
  try {
    return new RegExp(patterns.map((p) => `(?:${p.source})`).join('|'), flags);
  } catch {
    return undefined; // e.g. the same group name in two patterns
  }
}

/** Redacts every string inside plain JSON data (keys too), returning a copy. */
export function redactDeep(value: unknown, redact: Redactor): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, redact));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value)) out[redact(k)] = redactDeep((value as Record<string, unknown>)[k], redact);
    return out;
  }
  return value;
}
