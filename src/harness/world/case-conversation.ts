/**
 * The conversation a case runs as: the id of its conversation in the store, the
 * `conversationId` its agent is built for, and the first part of each tool call's
 * idempotency key (`<conversation>/<tool>:<call id>`).
 *
 * Each scenario case has its own (`caseConversation`), so a team's tool that keeps
 * state outside its factory — a sandbox account, a ledger keyed by conversation, a
 * payment API that remembers idempotency keys — sees no other case's calls under the
 * same keys: cases run at once, each through both hosts, and scenario authors reuse
 * call ids (outside probe 35, F10). The same case gets the same id on every run. A scenario's bystander (a
 * second conversation on the case's host) is `<case conversation>:bystander`.
 * `case` is the id of a run that names none (the fuzzer's, a test's).
 */
import { createRedactor, REDACTED, redactSecretPieces } from '../../kernel/index.ts';
import type { Scenario } from '../scenario/schema.ts';
import { agentNameOf, type AgentRegistry } from './agent-under-test.ts';

export const CASE_CONVERSATION = 'case';
/** The conversation id of the bystander of a case run as `case` (a second conversation on the same host and store). */
export const BYSTANDER_CONVERSATION = 'bystander';
const BYSTANDER_SUFFIX = ':bystander';

/** The bystander's conversation beside the case's: `<case conversation>:bystander` (`bystander` beside `case`). */
export function bystanderOf(conversation: string): string {
  return conversation === CASE_CONVERSATION ? BYSTANDER_CONVERSATION : `${conversation}${BYSTANDER_SUFFIX}`;
}

/** Is this a bystander's conversation (`bystanderOf` some case's)? */
export function isBystander(conversation: string): boolean {
  return conversation === BYSTANDER_CONVERSATION || conversation.endsWith(BYSTANDER_SUFFIX);
}

/** Letters, digits and `.`, `_`, `:`, `-`: what a conversation id may hold (the host's rule), at most 200. */
const KEPT = /[^A-Za-z0-9._:-]/g;
/** Room is left for the bystander's suffix (`bystanderOf`). */
const MAX_LENGTH = 200 - ':bystander'.length;

/**
 * The conversation of a scenario case through one host: `case:<scenario id>:<host>`, the id's other characters
 * as `_` (a `/` as `.`), with a hash of the id added when that changed or shortened it, so no two cases share one.
 */
export function caseConversation(scenarioId: string, host: 'loop' | 'production'): string {
  const suffix = `:${host === 'production' ? 'host' : 'loop'}`;
  const plain = scenarioId.replaceAll('/', '.').replace(KEPT, '_');
  const room = MAX_LENGTH - 'case:'.length - suffix.length;
  if (plain === scenarioId.replaceAll('/', '.') && !scenarioId.includes('.') && plain.length <= room) return `case:${plain}${suffix}`;
  const hash = `-${fnv1a(scenarioId)}`;
  return `case:${plain.slice(0, room - hash.length)}${hash}${suffix}`;
}

/**
 * The case's conversation if it names none of the case's secrets (`redact` leaves it as it is), else one named by a
 * hash of it: `case:<hash>:<host>` — the production host refuses an id holding a secret or a piece of one (400), and
 * the id is the first part of every idempotency key a tool sees. A scenario id comes from its file's name, which can
 * hold part of a key the scenario declares (a `rotated-sk-live-….yaml`).
 */
export function namingNoSecret(conversation: string, redact: (text: string) => string): string {
  if (redact(conversation) === conversation) return conversation;
  const suffix = conversation.includes(':') ? conversation.slice(conversation.lastIndexOf(':')) : '';
  // A hash that happens to hold a piece of a (hex) secret is salted again.
  for (let salt = 0; salt < 16; salt++) {
    const hashed = `case:${fnv1a(salt === 0 ? conversation : `${salt}:${conversation}`)}${suffix}`;
    if (redact(hashed) === hashed) return hashed;
  }
  return `case:${fnv1a(conversation)}${suffix}`;
}

/** `caseConversation`, named by its hash when it holds one of `secrets` (the agent's and the scenario's), a piece of one or a credential's shape. */
export function caseConversationNamingNoSecret(scenarioId: string, host: 'loop' | 'production', secrets: readonly string[]): string {
  const conversation = caseConversation(scenarioId, host);
  const redact = createRedactor({ secrets });
  return namingNoSecret(conversation, (text) => redactSecretPieces(redact(text), secrets, REDACTED));
}

/** FNV-1a, 32 bits, as 8 hex digits. */
function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, '0');
}

/**
 * The conversation a scenario's case runs as through `host`, naming none of the secrets the case's host knows before
 * it runs: its agent's (as the config's inspected build declares them), the scenario's and those it gains on a reopen.
 */
export function conversationOfCase(scenario: Scenario, scenarioId: string, host: 'loop' | 'production', registry: AgentRegistry): string {
  return caseConversationNamingNoSecret(scenarioId, host, secretsKnownBefore(scenario, registry));
}

/**
 * The secrets a scenario's case knows before it runs: its agent's (as the config's inspected build declares them),
 * the scenario's and those it gains on a reopen. A case whose own build of the agent throws is told in the build's
 * words, redacted with these (outside probe 40, F5: a session store's refusal quoting the agent's key reached every
 * report file).
 */
export function secretsKnownBefore(scenario: Scenario, registry: AgentRegistry): string[] {
  const agent = registry.inspected?.get(agentNameOf(scenario, registry))?.agent;
  const declared = Array.isArray(agent?.secrets) ? agent.secrets.filter((s): s is string => typeof s === 'string') : [];
  return [...new Set([...declared, ...(scenario.secrets ?? []), ...(scenario.secretsOnReopen ?? [])])];
}
