/** What the scenario cases of one suite share. */
import type { PriceTable } from '../report/cost/price-table.ts';
import type { ReplyAssertionContext } from './checks/reply-assertion-types.ts';
import type { Invariant } from './invariants/index.ts';
import type { HostMode } from './scenario/schema.ts';
import type { TestSeams } from './second-host.ts';
import type { UpdateSink } from './update/update-case.ts';
import type { AgentRegistry } from './world/agent-under-test.ts';

/** The hosts a suite runs its scenarios through when `loopgate run` is not told otherwise: both. */
export const DEFAULT_HOSTS: readonly HostMode[] = ['loop', 'production'];

/** What every scenario case of a suite runs with. */
export interface SuiteContext {
  /** The agents scenarios may name, and the default one. */
  readonly registry: AgentRegistry;
  /** Checked on every case: the registry's and the user's own. */
  readonly invariants: readonly Invariant[];
  /** Scenario ids are relative to this folder (the config file's). */
  readonly root: string;
  /** The hosts each scenario that does not pin one (`host:`) runs through. Default: the loop only. */
  readonly hosts?: readonly HostMode[];
  /** The config's prices: with them every case reports what its model calls cost. */
  readonly prices?: PriceTable;
  /** The config's predicates and judges, for `expect.assert`. */
  readonly replies?: ReplyAssertionContext;
  /** `--update`: rewrite each scenario's recorded expectations from its run, and tell the sink what was done. */
  readonly update?: UpdateSink;
  /** Test-only: the second host's seams, for every case (second-host.ts, TestSeams). */
  readonly seams?: TestSeams;
}
