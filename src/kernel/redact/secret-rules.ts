/**
 * The credential shapes redacted by default, as data: one rule per kind of key,
 * each with the shortest text it can match (so short strings skip the scan).
 *
 * The shapes follow the rules of gitleaks (https://github.com/gitleaks/gitleaks,
 * config/gitleaks.toml, MIT licence) for the same providers, written anew and
 * kept to the ones an agent's conversation is likely to carry: model-provider and
 * payment keys, cloud and source-hosting tokens, chat webhooks, JWTs, private key
 * blocks, and credentials inside connection URLs. Each rule replaces its whole
 * match with `[REDACTED]`.
 *
 * Keep them anchored on a prefix or a fixed structure: a rule that matches
 * ordinary prose (a bare 40-character hex string, `password: …`) would corrupt
 * what the model and the customer read.
 */

export interface SecretRule {
  /** Stable id, after gitleaks' rule names where there is one. */
  readonly id: string;
  readonly description: string;
  /** Global; no back-references (see unionOf in redactor.ts). */
  readonly pattern: RegExp;
  /** The shortest text the pattern can match. */
  readonly minLength: number;
}

export const SECRET_RULES: readonly SecretRule[] = [
  { id: 'anthropic-api-key', description: 'Anthropic API or admin key', pattern: /sk-ant-[A-Za-z0-9_-]{16,}/g, minLength: 23 },
  {
    id: 'openai-api-key',
    description: 'OpenAI project, service-account, admin or legacy key',
    pattern: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g,
    minLength: 23,
  },
  {
    id: 'stripe-access-token',
    description: 'Stripe secret or restricted key, live or test',
    pattern: /\b[rs]k_(?:live|test|prod)_[A-Za-z0-9]{10,}/g,
    minLength: 18,
  },
  { id: 'gcp-api-key', description: 'Google API key', pattern: /\bAIza[0-9A-Za-z_-]{35}/g, minLength: 39 },
  { id: 'gcp-oauth-client-secret', description: 'Google OAuth client secret', pattern: /\bGOCSPX-[A-Za-z0-9_-]{20,}/g, minLength: 27 },
  {
    id: 'jwt',
    description: 'JSON Web Token (header.payload.signature)',
    pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
    minLength: 30,
  },
  { id: 'aws-access-key-id', description: 'AWS access key id', pattern: /\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/g, minLength: 20 },
  {
    // Named as the CLI's files and variables name it (aws_secret_access_key, AWS_SECRET_ACCESS_KEY, aws-secret-access-key)
    // and as STS and the SDKs print it (SecretAccessKey, secretAccessKey): a bare 40-character key has no shape of its own.
    id: 'aws-secret-access-key',
    description: 'AWS secret access key, where it is named',
    pattern: /\b(?:(?:aws|AWS)[_-]?)?(?:secret|SECRET|Secret)[_-]?(?:access|ACCESS|Access)[_-]?(?:key|KEY|Key)["']?\s*[=:]\s*["']?[A-Za-z0-9/+=]{40}/g,
    minLength: 56,
  },
  {
    // STS session tokens open with the base64 of their own header (FwoGZXIvYXdz…, IQoJb3JpZ2luX2…); any other is
    // caught where it is named: after aws_session_token / AWS_SESSION_TOKEN / AwsSessionToken, in an
    // X-Amz-Security-Token header, or as the value of a
    // quoted SessionToken / sessionToken key (JSON). Named, the value must hold a digit, / or + as base64 does: code
    // that names one beside an identifier (`const sessionToken = getSessionTokenFromEnvironment()`) is not a token.
    id: 'aws-session-token',
    description: 'AWS temporary session token, by its opening or where it is named',
    pattern:
      /\b(?:FwoGZXIvYXdz|IQoJb3JpZ2luX2)[A-Za-z0-9/+=]{16,}|\b(?:(?:aws|AWS|Aws)_?(?:session|SESSION|Session)_?(?:token|TOKEN|Token)["']?\s*[=:]\s*["']?|[Xx]-[Aa]mz-[Ss]ecurity-[Tt]oken:\s*|(?:session|Session)_?(?:token|Token)["']\s*:\s*["'])(?=[A-Za-z=]*[0-9/+])[A-Za-z0-9/+=]{16,}/g,
    minLength: 28,
  },
  { id: 'github-pat', description: 'GitHub personal, OAuth, user, server or refresh token', pattern: /\bgh[pousr]_[A-Za-z0-9]{30,}/g, minLength: 34 },
  { id: 'github-fine-grained-pat', description: 'GitHub fine-grained personal access token', pattern: /\bgithub_pat_[A-Za-z0-9_]{22,}/g, minLength: 33 },
  { id: 'gitlab-pat', description: 'GitLab personal access token', pattern: /\bglpat-[A-Za-z0-9_-]{20,}/g, minLength: 26 },
  { id: 'slack-token', description: 'Slack bot, user, app or config token', pattern: /\bxox[abeprs]-[A-Za-z0-9-]{10,}/g, minLength: 15 },
  {
    id: 'slack-webhook-url',
    description: 'Slack incoming-webhook URL',
    pattern: /https:\/\/hooks\.slack\.com\/(?:services|workflows)\/[A-Za-z0-9+/_-]{20,}/g,
    minLength: 53,
  },
  { id: 'npm-access-token', description: 'npm access token', pattern: /\bnpm_[A-Za-z0-9]{36}/g, minLength: 40 },
  { id: 'sendgrid-api-token', description: 'SendGrid API key', pattern: /\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}/g, minLength: 69 },
  { id: 'huggingface-access-token', description: 'Hugging Face access token', pattern: /\bhf_[A-Za-z]{34}/g, minLength: 37 },
  { id: 'bearer-token', description: 'A bearer token in an Authorization header or text', pattern: /\bBearer\s+[A-Za-z0-9._~+/=-]{16,}/g, minLength: 23 },
  { id: 'basic-auth', description: 'HTTP basic credentials', pattern: /\bBasic\s+[A-Za-z0-9+/]{16,}={0,2}/g, minLength: 22 },
  {
    id: 'url-credentials',
    description: 'user and password inside a URL (database and broker connection strings); a password already masked (****) is none',
    pattern: /\b[A-Za-z][A-Za-z0-9+.-]{1,30}:\/\/[^\s:/@"'<>]{1,128}:(?!\*+@)[^\s@"'<>]{1,256}@/g,
    minLength: 8,
  },
  {
    id: 'private-key',
    description: 'a PEM private key block (to the end of the text when its END line is missing)',
    pattern: /-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----|$)/g,
    minLength: 27,
  },
];
