/**
 * How a provider takes part in the contract suite: for each case, a client whose
 * provider will behave as the case needs, or a reason it cannot.
 */
import type { ModelClient, ModelRequest } from '../../src/kernel/index.ts';
import type { Behaviour } from './behaviours.ts';
import type { ContractAdapterOptions } from './cases.ts';

export interface ContractScenario {
  readonly caseId: string;
  readonly behaviour: Behaviour;
  /** Options the case needs the client built with; given only to a harness with `adapterOptions`. */
  readonly adapter?: ContractAdapterOptions;
}

export interface HarnessClient {
  readonly client: ModelClient;
  /** False when the client was asked not to stream; delta checks then allow no deltas. Default true. */
  readonly streams?: boolean;
  /** How many requests reached the provider so far (lets cases check "nothing was sent"). */
  readonly requestCount?: () => number;
  /** How many of those requests the client aborted (closed its side of the connection), when the harness can tell. */
  readonly requestsAborted?: () => number;
  /**
   * The credentials the client was given (its API key, a bearer token): no result
   * or delta may carry one in any form (literal, URL-encoded, escaped, base64, hex),
   * and no failure message of the suite prints one.
   */
  readonly secrets?: readonly string[];
  /**
   * How the provider streams a text block, piece by piece in order, when the harness
   * knows it (the wire fakes send `pieces` of wire-fakes/turn.ts): cases then check
   * that a piece nothing of a credential can begin in is let out as it comes.
   */
  readonly pieces?: (text: string) => readonly string[];
  /**
   * Every request the provider received for this case, in order, its auth header (the one that carries the key by
   * design) left out or redacted, when the harness can tell: no other header, no path or query, no body may carry a
   * credential in any form — a key copied into `x-debug`, `?key=` or the body reaches every proxy and gateway log.
   */
  readonly received?: () => readonly ReceivedByProvider[];
  /** The last request as the provider received it and the lines the loop's request should read as (wire-fakes/conversation.ts), when the harness can tell. */
  readonly sent?: (request: ModelRequest) => { readonly got: readonly string[]; readonly want: readonly string[] } | undefined;
}

/** A request as the provider received it: the path with its query, the headers (auth header left out), the body. */
export interface ReceivedByProvider {
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The parsed JSON body, or its text. */
  readonly body?: unknown;
}

export interface Unsupported {
  /** Why this provider cannot take this case; shown with the skip. */
  readonly unsupported: string;
}

export interface ContractHarness {
  readonly name: string;
  /** Cases known up front to be impossible, with the reason (shown as visible skips). */
  readonly unsupported?: Readonly<Record<string, string>>;
  /** Builds its clients with a case's adapter options (ContractScenario.adapter); cases that need them are skipped elsewhere. */
  readonly adapterOptions?: boolean;
  start?(): void | Promise<void>;
  stop?(): void | Promise<void>;
  clientFor(scenario: ContractScenario): HarnessClient | Unsupported | Promise<HarnessClient | Unsupported>;
}

/** Why `harness` cannot run `testCase` before any client is built, if it cannot. */
export function skippedUpFront(harness: ContractHarness, testCase: { readonly id: string; readonly adapter?: ContractAdapterOptions }): string | undefined {
  const known = harness.unsupported?.[testCase.id];
  if (known) return known;
  if (testCase.adapter !== undefined && !harness.adapterOptions)
    return "the harness does not build its client with adapter options (an adapter's own default deadline, no credential)";
  return undefined;
}

export function isUnsupported(value: HarnessClient | Unsupported): value is Unsupported {
  return 'unsupported' in value;
}
