/**
 * The example after-sales support agent's tools: look up orders (no side
 * effects), add notes (idempotent), issue refunds (stateful, needs approval in the
 * bundled config), notify customers (critical: never repeated).
 */
import { z } from 'zod';
import { defineTool, ToolFailure, type AnyToolDeclaration } from '../../src/kernel/index.ts';
import type { SupportBackend } from './backend.ts';

const orderId = z.string().regex(/^ORD-\d+$/, 'an order id like ORD-1001');

// Built once: a registry converts each schema to JSON Schema, and caches by schema.
const LOOKUP_INPUT = z.object({ order_id: orderId });
const NOTE_INPUT = z.object({ order_id: orderId, note: z.string().min(1).max(500) });
const REFUND_INPUT = z.object({ order_id: orderId, amount: z.number().positive(), reason: z.string().min(1) });
const NOTIFY_INPUT = z.object({ customer: z.email(), message: z.string().min(1) });

export function supportTools(backend: SupportBackend): AnyToolDeclaration[] {
  return [
    defineTool({
      name: 'lookup_order',
      description: 'Look up an order by id: status, customer, total and items.',
      input: LOOKUP_INPUT,
      sideEffect: 'NONE',
      parallelSafe: true,
      timeoutMs: 5_000,
      run: ({ order_id }) => {
        backend.count('lookup_order');
        const order = backend.orders.get(order_id);
        if (!order) throw new ToolFailure('ORDER_NOT_FOUND', `no order ${order_id}`, { suggestion: 'Ask the customer to confirm the order id.' });
        return order;
      },
    }),
    defineTool({
      name: 'add_note',
      description: 'Add an internal note to an order.',
      input: NOTE_INPUT,
      sideEffect: 'IDEMPOTENT',
      timeoutMs: 5_000,
      run: ({ order_id, note }, ctx) => {
        backend.count('add_note');
        if (!backend.notes.some((n) => n.idempotencyKey === ctx.idempotencyKey)) {
          backend.notes.push({ orderId: order_id, text: note, idempotencyKey: ctx.idempotencyKey });
        }
        return { ok: true };
      },
    }),
    defineTool({
      name: 'issue_refund',
      description: 'Refund an order, fully or partly. Moves money: needs approval.',
      input: REFUND_INPUT,
      sideEffect: 'STATEFUL',
      timeoutMs: 10_000,
      run: ({ order_id, amount }, ctx) => {
        backend.count('issue_refund');
        const order = backend.orders.get(order_id);
        if (!order) throw new ToolFailure('ORDER_NOT_FOUND', `no order ${order_id}`, { suggestion: 'Look the order up first.' });
        if (amount > order.total) {
          throw new ToolFailure('AMOUNT_TOO_HIGH', `refund ${amount} exceeds the order total ${order.total}`, { suggestion: `Refund at most ${order.total}.` });
        }
        backend.refunds.push({ orderId: order_id, amount, idempotencyKey: ctx.idempotencyKey, callId: ctx.callId });
        return { refunded: amount, order_id };
      },
    }),
    defineTool({
      name: 'notify_customer',
      description: 'Send the customer an email. Cannot be undone.',
      input: NOTIFY_INPUT,
      sideEffect: 'CRITICAL',
      timeoutMs: 10_000,
      run: ({ customer, message }, ctx) => {
        backend.count('notify_customer');
        backend.notifications.push({ customer, message, callId: ctx.callId });
        return { sent: true };
      },
    }),
  ];
}
