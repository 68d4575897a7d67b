/**
 * A local OpenTelemetry collector stand-in: an in-process HTTP server on the
 * loopback address that accepts OTLP/HTTP trace exports in the JSON encoding
 * (https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding) and keeps
 * what it decoded — every span with its ids, parent, kind, status and attributes
 * as plain values, the resource, and each request's headers and raw body.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type AttributeValue = string | number | boolean | AttributeValue[] | null;

export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  readonly name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client. */
  readonly kind: number;
  readonly startNs: bigint;
  readonly endNs: bigint;
  /** OTLP StatusCode: 0 unset, 1 ok, 2 error. */
  readonly status: { readonly code: number; readonly message?: string };
  readonly attributes: Readonly<Record<string, AttributeValue>>;
  readonly resource: Readonly<Record<string, AttributeValue>>;
  readonly scope: string;
}

export interface ReceivedRequest {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpValue[] };
}
interface OtlpKeyValue {
  key: string;
  value: OtlpValue;
}

function decodeValue(v: OtlpValue): AttributeValue {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.arrayValue !== undefined) return (v.arrayValue.values ?? []).map(decodeValue);
  return null;
}

function decodeAttributes(list: OtlpKeyValue[] | undefined): Record<string, AttributeValue> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, decodeValue(kv.value)]));
}

export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  readonly requests: ReceivedRequest[] = [];
  readonly #server: Server;
  #url = '';

  private constructor() {
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        this.requests.push({ path: req.url ?? '', headers: req.headers, body });
        if (req.method !== 'POST' || req.url !== '/v1/traces' || !String(req.headers['content-type']).includes('application/json')) {
          res.writeHead(404).end();
          return;
        }
        try {
          this.#decode(JSON.parse(body));
        } catch {
          res.writeHead(400).end();
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
  }

  /** Starts a receiver on 127.0.0.1 at a free port. */
  static async start(): Promise<OtlpReceiver> {
    const receiver = new OtlpReceiver();
    await new Promise<void>((resolve) => receiver.#server.listen(0, '127.0.0.1', resolve));
    receiver.#url = `http://127.0.0.1:${(receiver.#server.address() as AddressInfo).port}`;
    return receiver;
  }

  /** The base URL (`http://127.0.0.1:PORT`); traces go to `${url}/v1/traces`. */
  get url(): string {
    return this.#url;
  }

  /** Spans grouped by trace id, in arrival order. */
  traces(): Map<string, ReceivedSpan[]> {
    const out = new Map<string, ReceivedSpan[]>();
    for (const span of this.spans) out.set(span.traceId, [...(out.get(span.traceId) ?? []), span]);
    return out;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }

  #decode(message: {
    resourceSpans?: {
      resource?: { attributes?: OtlpKeyValue[] };
      scopeSpans?: {
        scope?: { name?: string };
        spans?: {
          traceId: string;
          spanId: string;
          parentSpanId?: string;
          name: string;
          kind: number;
          startTimeUnixNano: string | number;
          endTimeUnixNano: string | number;
          status?: { code?: number; message?: string };
          attributes?: OtlpKeyValue[];
        }[];
      }[];
    }[];
  }): void {
    for (const rs of message.resourceSpans ?? []) {
      const resource = decodeAttributes(rs.resource?.attributes);
      for (const ss of rs.scopeSpans ?? []) {
        for (const s of ss.spans ?? []) {
          this.spans.push({
            traceId: s.traceId,
            spanId: s.spanId,
            parentSpanId: s.parentSpanId ? s.parentSpanId : undefined,
            name: s.name,
            kind: s.kind,
            startNs: BigInt(s.startTimeUnixNano),
            endNs: BigInt(s.endTimeUnixNano),
            status: { code: s.status?.code ?? 0, ...(s.status?.message ? { message: s.status.message } : {}) },
            attributes: decodeAttributes(s.attributes),
            resource,
            scope: ss.scope?.name ?? '',
          });
        }
      }
    }
  }
}
