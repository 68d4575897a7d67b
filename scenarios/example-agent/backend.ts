/**
 * The example after-sales agent's world: orders, refunds, notes and customer
 * notifications, in memory. Every side effect is recorded so a test can count
 * executions — a refund issued twice is a bug the harness must catch.
 */
export interface Order {
  readonly id: string;
  readonly customer: string;
  readonly status: 'processing' | 'shipped' | 'delivered' | 'cancelled';
  readonly total: number;
  readonly items: readonly string[];
  /**
   * Status changes, oldest first, as an order system hands them back: real `Date`s,
   * which the log keeps as JSON keeps them (ISO strings).
   */
  readonly timeline?: readonly { readonly status: Order['status']; readonly at: Date }[];
  /**
   * The carrier's tracking number, undefined until the order ships: an order
   * system's client hands the empty column back as a field set to `undefined`,
   * which JSON drops. ORD-1003's is one.
   */
  readonly tracking?: string | undefined;
}

export interface BackendFaults {
  /** Tool name → behaviour for its next calls (consumed one per call). */
  readonly next?: Partial<Record<string, ('fail' | 'throw' | 'hang' | 'slow' | 'ok')[]>>;
}

export class SupportBackend {
  readonly orders = new Map<string, Order>();
  readonly refunds: { orderId: string; amount: number; idempotencyKey: string; callId: string }[] = [];
  readonly notes: { orderId: string; text: string; idempotencyKey: string }[] = [];
  readonly notifications: { customer: string; message: string; callId: string }[] = [];
  /** Executions per tool name, including failed ones. */
  readonly executions = new Map<string, number>();

  constructor(orders: readonly Order[] = DEFAULT_ORDERS) {
    for (const order of orders) this.orders.set(order.id, order);
  }

  count(tool: string): void {
    this.executions.set(tool, (this.executions.get(tool) ?? 0) + 1);
  }

  executed(tool: string): number {
    return this.executions.get(tool) ?? 0;
  }
}

/**
 * A list as an order system's client library hands it back: its own subclass of
 * Array (as ORMs return collections), which JSON writes as a plain list and the
 * log must keep as one. ORD-1002's items are one.
 */
export class ItemList extends Array<string> {}

export const DEFAULT_ORDERS: readonly Order[] = [
  { id: 'ORD-1001', customer: 'ada@example.com', status: 'delivered', total: 120, items: ['kettle'] },
  { id: 'ORD-1002', customer: 'grace@example.com', status: 'shipped', total: 45.5, items: ItemList.of('mug', 'tea') },
  { id: 'ORD-1003', customer: 'alan@example.com', status: 'processing', total: 300, items: ['espresso machine'], tracking: undefined },
  {
    id: 'ORD-1004',
    customer: 'ada@example.com',
    status: 'delivered',
    total: 60,
    items: ['teapot'],
    timeline: [
      { status: 'shipped', at: new Date('2026-10-29T16:40:00Z') },
      { status: 'delivered', at: new Date('2026-10-31T11:05:00Z') },
    ],
  },
];
