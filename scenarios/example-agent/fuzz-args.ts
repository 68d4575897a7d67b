/**
 * What the fuzzer's model sends the example agent's tools: valid arguments first
 * (fast-check shrinks towards them), then the ways a model gets them wrong —
 * missing fields, text that is not quite JSON, an email that is not one.
 */
import fc from 'fast-check';

const orderId = fc.constantFrom('ORD-1001', 'ORD-1002', 'ORD-1003', 'ORD-9999');
const broken = fc.constantFrom<unknown>({}, '{"order_id": "ORD-1002",}', 'not json at all');

export const SUPPORT_FUZZ_ARGS: Readonly<Record<string, fc.Arbitrary<unknown>>> = {
  lookup_order: fc.oneof({ withCrossShrink: true }, { weight: 4, arbitrary: orderId.map((order_id) => ({ order_id })) }, { weight: 1, arbitrary: broken }),
  add_note: fc.oneof(
    { withCrossShrink: true },
    { weight: 4, arbitrary: fc.record({ order_id: orderId, note: fc.constantFrom('customer called', 'refund pending') }) },
    { weight: 1, arbitrary: broken },
  ),
  issue_refund: fc.oneof(
    { withCrossShrink: true },
    { weight: 4, arbitrary: fc.record({ order_id: orderId, amount: fc.constantFrom(10, 45.5, 120, 500), reason: fc.constantFrom('damaged', 'late') }) },
    { weight: 1, arbitrary: broken },
  ),
  notify_customer: fc.oneof(
    { withCrossShrink: true },
    {
      weight: 4,
      arbitrary: fc.record({
        customer: fc.constantFrom('ada@example.com', 'grace@example.com'),
        message: fc.constantFrom('Your refund is on its way.', 'Sorry!'),
      }),
    },
    { weight: 1, arbitrary: fc.constantFrom<unknown>({ customer: 'not-an-email', message: 'hi' }) },
  ),
};
