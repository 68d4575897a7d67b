/**
 * What each shared wire fixture (../shared/fixtures/wire, see its README; copied
 * into providers/fixtures/wire) must normalize to, written by reading the files.
 * Used by `loopgate run` (contract:recorded/… cases), the fixture replay test and
 * the `loopgate decode` test, so all give the same answer for each file.
 *
 * Error bodies (.json with an `error` object) carry no status in the files; they
 * are served with the status the provider sends for that error type or code:
 * Anthropic `invalid_request_error` → 400; OpenAI `insufficient_quota` → 429;
 * OpenAI `invalid_request_error` → 400.
 */
import { fileURLToPath } from 'node:url';
import type { ResultSummary } from './shared/summary.ts';
import type { WireProvider } from './names.ts';

/**
 * The recorded responses the gate replays: a verbatim copy of the shared
 * fixtures, shipped with the package (providers/fixtures/wire; a test checks
 * the copy byte for byte against the shared folder where it is present).
 * LOOPGATE_WIRE_FIXTURES points at another copy.
 */
export const WIRE_FIXTURES_DIR = process.env.LOOPGATE_WIRE_FIXTURES ?? fileURLToPath(new URL('./fixtures/wire/', import.meta.url));

/** The shared folder the copy is taken from (../shared/fixtures/wire beside the repository). */
export const SHARED_WIRE_FIXTURES_DIR = fileURLToPath(new URL('../../shared/fixtures/wire/', import.meta.url));

export interface FixtureExpectation {
  readonly provider: WireProvider;
  readonly file: string;
  /** The HTTP status the file is served with (error bodies only). */
  readonly status?: number;
  readonly expected: ResultSummary;
}

const anthropicUsage = (inputTokens: number, outputTokens: number) => ({ inputTokens, outputTokens, cacheReadTokens: 0, cacheWriteTokens: 0 });
const refusalDetails = {
  type: 'refusal',
  category: 'cyber',
  explanation: "This request triggered restrictions on violative cyber content and was blocked under Anthropic's Usage Policy.",
  recommended_model: 'claude-fable-5',
};
const quotaMessage =
  'You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.';

export const FIXTURE_EXPECTATIONS: readonly FixtureExpectation[] = [
  // --- anthropic ---
  {
    provider: 'anthropic',
    file: 'anthropic-fallback-mid-output.chunks.txt',
    // Thinking and the fallback block are not assistant content; usage is the top-level report.
    expected: {
      type: 'tool_use',
      text: '',
      calls: [{ id: 'toolu_1', name: 'lookup', args: { q: 'x' } }],
      stopReason: 'tool_use',
      usage: { inputTokens: 10, outputTokens: 70 },
    },
  },
  {
    provider: 'anthropic',
    file: 'anthropic-issue-10372-tool-call.json',
    expected: {
      type: 'tool_use',
      text: '',
      calls: [{ id: 'toolu_01MhUGx2K4rTe9D6nZxtGURs', name: 'getWeather', args: { location: 'Tokyo' } }],
      stopReason: 'tool_use',
      usage: anthropicUsage(822, 33),
    },
  },
  {
    provider: 'anthropic',
    file: 'anthropic-issue-11719-quoted-tool-input.chunks.txt',
    expected: {
      type: 'tool_use',
      text: '',
      calls: [
        {
          id: 'toolu_01Cr31vcGoeeRgi3Eo5Ds8qN',
          name: 'website_update',
          args: {
            website_path: '/home/user/pace-landing',
            tasks: [
              {
                description:
                  'Today you post every run to Strava, but Strava does not answer the question: "What should I do next after this run?". It is a great log, but it is not adaptive.',
                type: 'feature',
                passes: false,
              },
            ],
          },
        },
      ],
      stopReason: 'tool_use',
      usage: anthropicUsage(912, 118),
    },
  },
  {
    provider: 'anthropic',
    file: 'anthropic-issue-17366-error.json',
    status: 400,
    expected: {
      type: 'transport_error',
      kind: 'invalid_request',
      status: 400,
      message:
        'messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: srvtoolu_issue_17366_invalid. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
    },
  },
  {
    provider: 'anthropic',
    file: 'anthropic-json-tool.1.chunks.txt',
    expected: {
      type: 'tool_use',
      text: '',
      calls: [
        {
          id: 'toolu_01KFbKqPYSuAKujiL6mTfzYA',
          name: 'json',
          args: { elements: [{ location: 'San Francisco', temperature: 58, condition: 'sunny' }] },
        },
      ],
      stopReason: 'tool_use',
      usage: anthropicUsage(849, 47),
    },
  },
  {
    provider: 'anthropic',
    file: 'anthropic-message-delta-input-tokens.chunks.txt',
    // message_delta's input_tokens (61) replaces message_start's (43).
    expected: { type: 'reply', text: 'pong', stopReason: 'end_turn', usage: { inputTokens: 61, outputTokens: 2 } },
  },
  {
    provider: 'anthropic',
    file: 'anthropic-refusal-no-details.json',
    expected: { type: 'refusal', text: '', stopReason: 'refusal', usage: anthropicUsage(18, 5) },
  },
  {
    provider: 'anthropic',
    file: 'anthropic-refusal.chunks.txt',
    expected: { type: 'refusal', text: '', details: refusalDetails, stopReason: 'refusal', usage: anthropicUsage(18, 5) },
  },
  {
    provider: 'anthropic',
    file: 'anthropic-refusal.json',
    expected: { type: 'refusal', text: '', details: refusalDetails, stopReason: 'refusal', usage: anthropicUsage(18, 5) },
  },
  {
    provider: 'anthropic',
    file: 'anthropic-text.chunks.txt',
    expected: {
      type: 'reply',
      text: "Hello! I'm doing well, thank you for asking. How are you doing today? Is there anything I can help you with?",
      stopReason: 'end_turn',
      usage: anthropicUsage(12, 30),
    },
  },
  {
    provider: 'anthropic',
    file: 'anthropic-text.json',
    expected: {
      type: 'reply',
      text: "Hello! I'm doing well, thanks for asking. How are you doing today? Is there anything I can help you with?",
      stopReason: 'end_turn',
      usage: anthropicUsage(12, 29),
    },
  },
  {
    provider: 'anthropic',
    file: 'anthropic-tool-no-args.chunks.txt',
    expected: {
      type: 'tool_use',
      text: "I'll update the issue list for you.",
      calls: [{ id: 'toolu_01QE1WLsSVp5hy5Q3GmGTmjP', name: 'updateIssueList', args: {} }],
      stopReason: 'tool_use',
      usage: anthropicUsage(565, 48),
    },
  },
  {
    provider: 'anthropic',
    file: 'duplicate-message-start.chunks.txt',
    expected: { type: 'reply', text: 'Hello, World!', stopReason: 'end_turn', usage: { inputTokens: 17, outputTokens: 227 } },
  },
  // --- openai-chat ---
  {
    provider: 'openai-chat',
    file: 'azure-model-router.1.chunks.txt',
    expected: {
      type: 'reply',
      text: 'Capital of Denmark.',
      stopReason: 'stop',
      usage: { inputTokens: 15, outputTokens: 78, cacheReadTokens: 0, reasoningTokens: 64 },
    },
  },
  {
    provider: 'openai-chat',
    file: 'issue-15789-step-1.chunks.txt',
    expected: {
      type: 'tool_use',
      text: 'PRE_TOOL',
      calls: [{ id: 'call_NZa7xqfefoaMI2YYHowVXVlU', name: 'weather', args: {} }],
      stopReason: 'tool_calls',
      usage: { inputTokens: 58, outputTokens: 12, cacheReadTokens: 0, reasoningTokens: 0 },
    },
  },
  {
    provider: 'openai-chat',
    file: 'issue-15789-step-2.chunks.txt',
    expected: { type: 'reply', text: 'POST_TOOL', stopReason: 'stop', usage: { inputTokens: 86, outputTokens: 2, cacheReadTokens: 0, reasoningTokens: 0 } },
  },
  {
    provider: 'openai-chat',
    file: 'openai-text.json',
    // The text is long; the replay test reads it from the file itself (see TEXT_FROM_FILE).
    expected: {
      type: 'reply',
      text: 'TEXT_FROM_FILE',
      stopReason: 'stop',
      usage: { inputTokens: 16, outputTokens: 363, cacheReadTokens: 0, reasoningTokens: 0 },
    },
  },
  {
    provider: 'openai-chat',
    file: 'reasoning-model-legacy-parameter-error.json',
    status: 400,
    expected: {
      type: 'transport_error',
      kind: 'invalid_request',
      status: 400,
      message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
    },
  },
  // --- openai-responses ---
  {
    provider: 'openai-responses',
    file: 'issue-19067-parallel-tool-call-wrapper.chunks.txt',
    // The undeclared `parallel` wrapper is unwrapped into the two calls it carries.
    expected: {
      type: 'tool_use',
      text: '',
      calls: [
        { id: 'call_parallel_0', name: 'weather', args: { location: 'San Francisco' } },
        { id: 'call_parallel_1', name: 'cityAttractions', args: { city: 'Rome' } },
      ],
      stopReason: 'completed',
      usage: { inputTokens: 34, outputTokens: 28, cacheReadTokens: 0, reasoningTokens: 0 },
    },
  },
  {
    provider: 'openai-responses',
    file: 'issue-19493-gpt-5.1-tool-call.chunks.txt',
    expected: {
      type: 'tool_use',
      text: '',
      calls: [{ id: 'call_2FQdm3Br7Qb35YUBSkDR7kue', name: 'get_weather', args: { city: 'Beijing' } }],
      stopReason: 'completed',
      usage: { inputTokens: 45, outputTokens: 25, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
    },
  },
  {
    provider: 'openai-responses',
    file: 'issue-20047-openai-responses.chunks.txt',
    expected: {
      type: 'reply',
      text: 'OK',
      stopReason: 'completed',
      usage: { inputTokens: 12, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
    },
  },
  {
    provider: 'openai-responses',
    file: 'issue-20047-openai-responses.json',
    expected: {
      type: 'reply',
      text: 'OK',
      stopReason: 'completed',
      usage: { inputTokens: 12, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
    },
  },
  {
    provider: 'openai-responses',
    file: 'issue-7082-o3-optional-tool-parameters.json',
    expected: {
      type: 'tool_use',
      text: '',
      calls: [
        {
          id: 'call_2mhz5FtwkZnzXQkTOMtYZpZH',
          name: 'semantic_scholar_search',
          args: { query: 'machine learning', limit: 10, offset: 0, year: 0 },
        },
      ],
      stopReason: 'completed',
      usage: { inputTokens: 114, outputTokens: 88, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
    },
  },
  {
    provider: 'openai-responses',
    file: 'openai-error-null-code.1.chunks.txt',
    expected: { type: 'transport_error', kind: 'server_error', message: 'Sorry, something went wrong.' },
  },
  {
    provider: 'openai-responses',
    file: 'openai-error.1.chunks.txt',
    // insufficient_quota: an account problem; retrying cannot help.
    expected: { type: 'transport_error', kind: 'auth', message: quotaMessage },
  },
  {
    provider: 'openai-responses',
    file: 'openai-error.1.json',
    status: 429,
    expected: { type: 'transport_error', kind: 'auth', status: 429, message: quotaMessage },
  },
  {
    provider: 'openai-responses',
    file: 'openai-issue-11239.1.chunks.txt',
    expected: {
      type: 'tool_use',
      text: '',
      calls: [{ id: 'call_LUBOONF2cY8HDQdBwiEQ9fk1', name: 'lookupCode', args: {} }],
      stopReason: 'completed',
      usage: { inputTokens: 55, outputTokens: 25, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 9 },
    },
  },
  {
    provider: 'openai-responses',
    file: 'openai-issue-17402-error.1.json',
    status: 400,
    expected: { type: 'transport_error', kind: 'invalid_request', status: 400, message: "Missing required parameter: 'input[0].arguments'." },
  },
  {
    provider: 'openai-responses',
    file: 'openai-response-failed-only.1.chunks.txt',
    expected: {
      type: 'transport_error',
      kind: 'rate_limited',
      message: 'Request too large for gpt-4o-mini in organization on tokens per min (TPM): Limit 30000, Requested 35364.',
    },
  },
  {
    provider: 'openai-responses',
    file: 'reasoning-model-temperature-error.json',
    status: 400,
    expected: {
      type: 'transport_error',
      kind: 'invalid_request',
      status: 400,
      message: "Unsupported parameter: 'temperature' is not supported with this model.",
    },
  },
];

/** The expected summary, with the long text of `openai-text.json` read from the file itself. */
export function expectedSummary(entry: FixtureExpectation, fileText: string): ResultSummary {
  if (entry.expected.text !== 'TEXT_FROM_FILE') return entry.expected;
  const body = JSON.parse(fileText) as { choices: { message: { content: string } }[] };
  return { ...entry.expected, text: body.choices[0]!.message.content };
}
