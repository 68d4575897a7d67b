/**
 * The scenarios both SDK adapters' contract cases run a tool that holds its calls
 * for approval through (`needsApproval`): refunds one per step with the approver's
 * answers, two refunds held in one step, and a refund cancelled while the approver
 * decides.
 */
import { parseScenario } from '../../harness/scenario/load.ts';
import type { Scenario } from '../../harness/scenario/schema.ts';

/** A refund step of the script. */
export const refundStep = (id: string, order: string) => `    - tool_use: [{ id: ${id}, name: issue_refund, args: { order: ${order} } }]`;

/** Refunds of the orders given, one per step, with the approver's answers (`''`: no approver). */
export function approvalScenario(file: string, answers: string, orders: readonly string[]): Scenario {
  return parseScenario(
    `name: refunds an approver may hold
${answers === '' ? '' : `approver: { answers: [${answers}] }\n`}provider:
  script:
${orders.map((order, i) => refundStep(`r${i + 1}`, order)).join('\n')}
    - reply: Done.
inbox:
  - say: Refund my orders.
expect:
  outcome: replied
`,
    `${file}#approval`,
  );
}

/** A refund cancelled while the approver decides (it says yes a second later). */
export const CANCELLED_WHILE_ASKED = `name: a refund cancelled while the approver decides
approver: { answers: [approve], delayMs: 1000 }
provider:
  script:
${refundStep('r1', 'ORD-2')}
    - reply: Done.
inbox:
  - say: Refund ORD-2.
  - cancel: user
    at: { approval: 1 }
expect: {}
`;

/**
 * Two refunds held in one step, the first denied and the second approved: the AI SDK answers the approved call
 * first, and every provider takes a step's results in any order (outside probe 46).
 */
export const TWO_HELD_IN_ONE_STEP = `name: two refunds held in one step
approver: { answers: [deny, approve] }
provider:
  script:
    - tool_use: [{ id: r1, name: issue_refund, args: { order: ORD-1 } }, { id: r2, name: issue_refund, args: { order: ORD-2 } }]
    - reply: Done.
inbox:
  - say: Refund ORD-1 and ORD-2.
expect: {}
`;
