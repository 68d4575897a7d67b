/**
 * Spans a peer reports, kept per turn and turned into loopgate's trace records:
 * each peer span mapped to a loopgate kind (unmapped ones dropped, their names
 * kept on the turn span as `peer.unmapped`), times on the case's clock, and a span
 * the peer never ended reported `undetermined` — invariant 8's finding.
 */
import type { AttributeValue, Clock, SpanKind, SpanRecord, SpanStatus, TraceRecord } from '../../kernel/index.ts';

export interface BookSpan {
  readonly id: string;
  /** Set when the span opens; only `underOne` moves a root under the span it opens over the turn. */
  parentId: string | undefined;
  readonly turn: number;
  readonly name: string;
  readonly start: number;
  end: number | undefined;
  status: 'ok' | 'error' | 'cancelled' | undefined;
  readonly attributes: Record<string, AttributeValue>;
}

export class SpanBook {
  readonly #clock: Clock;
  readonly #kindOf: (name: string) => SpanKind | undefined;
  readonly #spans: BookSpan[] = [];
  readonly #traceEnded = new Set<number>();
  #ids = 0;

  /** `kindOf` maps a peer span name to a loopgate kind (undefined: not mapped). */
  constructor(clock: Clock, kindOf: (name: string) => SpanKind | undefined) {
    this.#clock = clock;
    this.#kindOf = kindOf;
  }

  open(name: string, turn: number, parentId: string | undefined, attributes: Record<string, AttributeValue> = {}): BookSpan {
    const span: BookSpan = {
      id: `s${++this.#ids}`,
      parentId,
      turn,
      name,
      start: this.#clock.now(),
      end: undefined,
      status: undefined,
      attributes: { ...attributes },
    };
    this.#spans.push(span);
    return span;
  }

  /**
   * The turn's root spans put under one span `name` opened over them (from the first one's start; closed by the
   * caller): for a turn the app ran as several runs of the peer (answering its approval requests between them),
   * whose trace is still one turn with one root.
   */
  underOne(turn: number, name: string): BookSpan {
    const roots = this.#spans.filter((s) => s.turn === turn && s.parentId === undefined);
    const span: BookSpan = {
      id: `s${++this.#ids}`,
      parentId: undefined,
      turn,
      name,
      start: Math.min(this.#clock.now(), ...roots.map((r) => r.start)),
      end: undefined,
      status: undefined,
      attributes: {},
    };
    for (const root of roots) root.parentId = span.id;
    const first = roots[0] ? this.#spans.indexOf(roots[0]) : this.#spans.length;
    this.#spans.splice(first, 0, span);
    return span;
  }

  close(span: BookSpan, status: 'ok' | 'error' | 'cancelled'): void {
    if (span.end !== undefined) return; // first end wins
    span.end = this.#clock.now();
    span.status = status;
  }

  /** The peer ended the trace of a turn (for peers with a trace lifecycle of their own). */
  traceEnded(turn: number): void {
    this.#traceEnded.add(turn);
  }

  /** One trace per turn that opened spans. `needsTraceEnd`: a turn whose trace the peer never ended records a violation. */
  traces(needsTraceEnd = false): TraceRecord[] {
    const turns = [...new Set(this.#spans.map((s) => s.turn))].sort((a, b) => a - b);
    return turns.map((turn) => {
      const all = this.#spans.filter((s) => s.turn === turn);
      const mapped = all.filter((s) => this.#kindOf(s.name) !== undefined);
      const ids = new Set(mapped.map((s) => s.id));
      const byId = new Map(all.map((s) => [s.id, s]));
      // A mapped span's parent: its nearest mapped ancestor (flattened peer layers, e.g. an agent span under the task).
      const parentOf = (s: BookSpan): string | undefined => {
        for (let p = s.parentId ? byId.get(s.parentId) : undefined; p; p = p.parentId ? byId.get(p.parentId) : undefined) if (ids.has(p.id)) return p.id;
        return undefined;
      };
      const unmapped = [...new Set(all.filter((s) => !ids.has(s.id)).map((s) => s.name))];
      const spans: SpanRecord[] = mapped.map((s) => ({
        id: s.id,
        parentId: parentOf(s),
        kind: this.#kindOf(s.name)!,
        name: s.name,
        start: s.start,
        end: s.end,
        status: (s.status ?? 'undetermined') as SpanStatus,
        attributes: {
          ...s.attributes,
          'peer.span': s.name,
          ...(unmapped.length > 0 && this.#kindOf(s.name) === 'turn' ? { 'peer.unmapped': unmapped } : {}),
        },
      }));
      const violations = needsTraceEnd && !this.#traceEnded.has(turn) ? [`the peer never ended the trace of turn ${turn}`] : [];
      return { traceId: `peer:${turn}`, spans, violations };
    });
  }
}
