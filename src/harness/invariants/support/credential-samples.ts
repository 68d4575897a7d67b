/**
 * One made-up credential of each shape loopgate redacts by default (the kernel's
 * secret rules), written out by hand rather than generated from the rules' own
 * patterns, so a rule that stops matching its shape shows. `tell` is the part
 * that must never be readable again once redacted: the key itself, not the
 * prefix every key of the kind shares (or, in a URL, the password).
 *
 * Planted by the bundled scenario `safety/credential-shapes-redacted-unconfigured`
 * and by fuzz tool outputs; checked by the invariant `credential-shapes-redacted`.
 */
export interface CredentialSample {
  /** The secret rule (kernel redact/secret-rules.ts) that must catch it. */
  readonly rule: string;
  readonly text: string;
  readonly tell: string;
}

export const CREDENTIAL_SAMPLES: readonly CredentialSample[] = [
  { rule: 'anthropic-api-key', text: 'sk-ant-api03-Xq7vB2mN9pL4kR8tW1yZ3cF6hJ0dG5sA', tell: 'Xq7vB2mN9pL4kR8tW1yZ3cF6hJ0dG5sA' },
  { rule: 'openai-api-key', text: 'sk-proj-Tz8Qw4Er6Ty2Ui9Op1As3Df5Gh7Jk0Lz', tell: 'Tz8Qw4Er6Ty2Ui9Op1As3Df5Gh7Jk0Lz' },
  // These two match the legacy form too (its body takes "-"): they show the prefixes are redacted, not that the rule names them.
  { rule: 'openai-api-key', text: 'sk-svcacct-Bn3Mq7Wx1Ze5Rv9Tc2Yu6Ip0Oa4Sd', tell: 'Bn3Mq7Wx1Ze5Rv9Tc2Yu6Ip0Oa4Sd' },
  { rule: 'openai-api-key', text: 'sk-admin-Kj8Hg2Fd6Sa0Lq4Wp9Eo3Ri7Tu1Yz', tell: 'Kj8Hg2Fd6Sa0Lq4Wp9Eo3Ri7Tu1Yz' },
  { rule: 'openai-api-key', text: 'sk-Vb5Nm1Qw9Er3Ty7Ui2Op6As0Df4Gh8Jk', tell: 'Vb5Nm1Qw9Er3Ty7Ui2Op6As0Df4Gh8Jk' },
  { rule: 'stripe-access-token', text: 'rk_live_51HqLyjWDarjtT1zdp7dcXy', tell: '51HqLyjWDarjtT1zdp7dcXy' },
  { rule: 'stripe-access-token', text: 'sk_test_4eC39HqLyjWDarjtT1zdp7dc', tell: '4eC39HqLyjWDarjtT1zdp7dc' },
  { rule: 'stripe-access-token', text: 'sk_prod_7Rt2Yu8Io3Pa5Sd1Fg6Hj0Kl', tell: '7Rt2Yu8Io3Pa5Sd1Fg6Hj0Kl' },
  { rule: 'gcp-api-key', text: 'AIzaSyD4xQ9vL2mN7pK1rT8wZ3cF6hJ0dG5sA9b', tell: 'SyD4xQ9vL2mN7pK1rT8wZ3cF6hJ0dG5sA9b' },
  { rule: 'gcp-oauth-client-secret', text: 'GOCSPX-9fK2mQ7xL4vT1nB8wR3yZ6cH', tell: '9fK2mQ7xL4vT1nB8wR3yZ6cH' },
  {
    rule: 'jwt',
    text: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjdXN0XzQyIn0.dBjftJeZ4CVPmB92K27uhbUJU1p1rwW1gFWFOEjXk',
    tell: 'dBjftJeZ4CVPmB92K27uhbUJU1p1rwW1gFWFOEjXk',
  },
  { rule: 'aws-access-key-id', text: 'AKIAIOSFODNN7QX2M4PB', tell: 'IOSFODNN7QX2M4PB' },
  { rule: 'aws-access-key-id', text: 'ASIAJ7Q2W4E6R8T0Y1U3', tell: 'J7Q2W4E6R8T0Y1U3' },
  { rule: 'aws-access-key-id', text: 'ABIAZ9X8C7V6B5N4M3L2', tell: 'Z9X8C7V6B5N4M3L2' },
  { rule: 'aws-access-key-id', text: 'ACCAP0O9I8U7Y6T5R4E3', tell: 'P0O9I8U7Y6T5R4E3' },
  { rule: 'aws-secret-access-key', text: 'aws_secret_access_key = wJalrXUtnFEMIK7MDENGbPxRfiCYzQ8rT4kL2mN6', tell: 'wJalrXUtnFEMIK7MDENGbPxRfiCYzQ8rT4kL2mN6' },
  // As `aws sts assume-role` and `aws configure export-credentials` print them (outside probe 63, F2).
  { rule: 'aws-secret-access-key', text: '"SecretAccessKey": "9drTJvcXLB89EXAMPLELB8923FB892xMFI2Cy8Q4"', tell: '9drTJvcXLB89EXAMPLELB8923FB892xMFI2Cy8Q4' },
  {
    rule: 'aws-session-token',
    text: '"SessionToken": "IQoJb3JpZ2luX2VjEJr//////////wEaCXVzLWVhc3QtMSJHMEUCIQDzTm4eQ7Rk2vLw9"',
    tell: 'EJr//////////wEaCXVzLWVhc3QtMSJHMEUCIQDzTm4eQ7Rk2vLw9',
  },
  { rule: 'aws-session-token', text: 'FwoGZXIvYXdzEBYaDHqa0AP1xTk9Wm3Zr8Lq2Vn5Bc7Yt4', tell: 'EBYaDHqa0AP1xTk9Wm3Zr8Lq2Vn5Bc7Yt4' },
  { rule: 'aws-session-token', text: 'export AWS_SESSION_TOKEN=Qm9vdHN0cmFwVG9rZW4x7Rk2vLw9Zq8Wx', tell: 'Qm9vdHN0cmFwVG9rZW4x7Rk2vLw9Zq8Wx' },
  { rule: 'github-pat', text: 'ghp_R4nD0mT0k3nV4lu3F0rT3st1ngAbCdEf12', tell: 'R4nD0mT0k3nV4lu3F0rT3st1ngAbCdEf12' },
  // Every kind the rule names, one sample each: a rule that lost one (outside probe 70: ghr_ refresh tokens) passed
  // every case while only the personal token was sampled.
  { rule: 'github-pat', text: 'gho_Oa7Uth0T0k3nF0rT3st1ngQwErTyUi34', tell: 'Oa7Uth0T0k3nF0rT3st1ngQwErTyUi34' },
  { rule: 'github-pat', text: 'ghu_Us3rT0S3rv3rT0k3nT3st1ngZxCvBn56', tell: 'Us3rT0S3rv3rT0k3nT3st1ngZxCvBn56' },
  { rule: 'github-pat', text: 'ghs_S3rv3rT0S3rv3rT0k3nT3st1ngAsDfGh78', tell: 'S3rv3rT0S3rv3rT0k3nT3st1ngAsDfGh78' },
  { rule: 'github-pat', text: 'ghr_R3fr3shT0k3nF0rT3st1ngPlOkMiJn90', tell: 'R3fr3shT0k3nF0rT3st1ngPlOkMiJn90' },
  {
    rule: 'github-fine-grained-pat',
    text: 'github_pat_11ABCDEFG0aBcDeFgHiJkLmN_oPqRsTuVwXyZ0123456789',
    tell: '11ABCDEFG0aBcDeFgHiJkLmN_oPqRsTuVwXyZ0123456789',
  },
  { rule: 'gitlab-pat', text: 'glpat-xY9zQ2wE4rT6yU8iO0pA', tell: 'xY9zQ2wE4rT6yU8iO0pA' },
  { rule: 'slack-token', text: 'xoxb-2048-1024-Zq8Wx7Vc6Bn5', tell: '2048-1024-Zq8Wx7Vc6Bn5' },
  { rule: 'slack-token', text: 'xoxp-4096-2048-Lk9Jh8Gf7Ds6', tell: '4096-2048-Lk9Jh8Gf7Ds6' },
  { rule: 'slack-token', text: 'xoxa-2-8192-Mn4Bv3Cx2Za1Qw', tell: '2-8192-Mn4Bv3Cx2Za1Qw' },
  { rule: 'slack-token', text: 'xoxe-1-My9Rt5Ew3Qa7Zx2Cv', tell: '1-My9Rt5Ew3Qa7Zx2Cv' },
  { rule: 'slack-token', text: 'xoxr-7-Po0Iu9Yt8Re7Wq6Lk', tell: '7-Po0Iu9Yt8Re7Wq6Lk' },
  { rule: 'slack-token', text: 'xoxs-3-Hg5Fd4Sa3Pl2Ok1Ij', tell: '3-Hg5Fd4Sa3Pl2Ok1Ij' },
  {
    rule: 'slack-webhook-url',
    text: 'https://hooks.slack.com/services/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',
    tell: 'T0A1B2C3D/B4E5F6G7H/Xy9Zq8Wx7Vc6Bn5Mm4Ll3Kk2',
  },
  { rule: 'npm-access-token', text: 'npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8', tell: 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8' },
  {
    rule: 'sendgrid-api-token',
    text: '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',
    tell: 'Pq8Rs9Tu0Vw1Xy2Za3Bc4De5Fg6Hi7Jk8Lm9No0Pq1R',
  },
  { rule: 'huggingface-access-token', text: 'hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh', tell: 'AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh' },
  { rule: 'bearer-token', text: 'Authorization: Bearer 9f8e7d6c5b4a3f2e1d0c9b8a', tell: '9f8e7d6c5b4a3f2e1d0c9b8a' },
  { rule: 'basic-auth', text: 'Authorization: Basic dXNlcjpzM2NyM3RwNHNzdzByZA==', tell: 'dXNlcjpzM2NyM3RwNHNzdzByZA' },
  { rule: 'url-credentials', text: 'postgres://app:Hunter2Secret@db.internal:5432/app', tell: 'Hunter2Secret' },
  {
    rule: 'private-key',
    text: '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----',
    tell: 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7',
  },
];
