import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import type { Json } from '@modelgate/shared';

/**
 * A local server speaking the parts of Stripe's API the gateway uses, as the official SDK sends
 * them (form-encoded bodies, `Authorization: Bearer sk_…`): Checkout Sessions (create, retrieve),
 * Subscriptions (retrieve, update, cancel), plus a hosted checkout page whose Pay button marks the
 * session paid, delivers the signed webhook events to the gateway and redirects to the success URL.
 * Webhooks are signed by the SDK's own `webhooks.generateTestHeaderString`. Nothing reaches
 * stripe.com.
 */
export interface StripeCall {
  method: string;
  path: string;
  form: Record<string, unknown>;
  headers: http.IncomingHttpHeaders;
}

export interface Delivery {
  status: number;
  body: string;
}

const apiVersion = '2026-10-28.endive';
const daySeconds = 86_400;

/** `a[b][0][c]=1` form fields into nested objects and arrays, as Stripe reads them. */
export function decodeForm(body: string): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [name, value] of new URLSearchParams(body)) {
    const keys = name.replace(/\]/g, '').split('[');
    let node: Record<string, unknown> = root;
    keys.forEach((key, i) => {
      if (i === keys.length - 1) {
        node[key] = value;
        return;
      }
      const isIndex = /^\d+$/.test(keys[i + 1]!);
      node[key] ??= isIndex ? [] : {};
      node = node[key] as Record<string, unknown>;
    });
  }
  return root;
}

const id = (prefix: string) => `${prefix}_test_${randomBytes(12).toString('hex')}`;
const now = () => Math.floor(Date.now() / 1000);

function periodSeconds(interval: string, count: number): number {
  const days = { day: 1, week: 7, month: 30, year: 365 }[interval] ?? 30;
  return days * count * daySeconds;
}

export class StripeServer {
  readonly calls: StripeCall[] = [];
  readonly sessions = new Map<string, Json>();
  readonly subscriptions = new Map<string, Json>();
  /** Where events are delivered: the gateway's `/api/stripe/webhook`. */
  webhookUrl = '';
  /** Answer every API call with this HTTP status and a Stripe error (tests of failures). */
  failWith: number | null = null;
  url = '';
  private server: http.Server | null = null;

  constructor(
    readonly secretKey: string,
    readonly webhookSecret: string,
  ) {}

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        this.route(req, Buffer.concat(chunks).toString('utf8'), res).catch((error: unknown) => {
          res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error));
        });
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server?.closeAllConnections();
      this.server?.close(() => resolve());
    });
  }

  /** A signed event as Stripe delivers it; `timestamp` and `secret` forge stale or foreign ones. */
  event(type: string, object: Json, options: { timestamp?: number; secret?: string } = {}): { payload: string; signature: string } {
    const payload = JSON.stringify({
      id: id('evt'),
      object: 'event',
      api_version: apiVersion,
      created: now(),
      type,
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      data: { object },
    });
    const signature = Stripe.webhooks.generateTestHeaderString({
      payload,
      secret: options.secret ?? this.webhookSecret,
      ...(options.timestamp === undefined ? {} : { timestamp: options.timestamp }),
    });
    return { payload, signature };
  }

  /** POSTs a signed event to the gateway's webhook (`url`: another instance's). */
  async deliver(
    type: string,
    object: Json,
    options: { timestamp?: number; secret?: string; signature?: string; url?: string } = {},
  ): Promise<Delivery> {
    const signed = this.event(type, object, options);
    const res = await fetch(options.url ?? this.webhookUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'stripe-signature': options.signature ?? signed.signature,
        'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
      },
      body: signed.payload,
    });
    return { status: res.status, body: await res.text() };
  }

  /** The buyer pays: the session becomes complete and paid; a subscription session gets its subscription. */
  pay(sessionId: string): Json {
    const session = this.sessions.get(sessionId);
    if (!session) throw new Error(`no session ${sessionId}`);
    if (session.status === 'complete') return session;
    // Stripe: an expired session cannot be paid any more.
    if (session.status === 'expired') throw new Error(`session ${sessionId} is expired`);
    session.status = 'complete';
    session.payment_status = 'paid';
    if (session.mode === 'subscription') {
      const item = (session.line_items as Json[])[0]!;
      const recurring = (item.price_data as Json).recurring as Json;
      const start = now();
      const sub: Json = {
        id: id('sub'),
        object: 'subscription',
        status: 'active',
        cancel_at_period_end: false,
        customer: id('cus'),
        metadata: session.subscription_metadata ?? {},
        interval: recurring.interval,
        interval_count: Number(recurring.interval_count ?? 1),
        items: {
          object: 'list',
          data: [
            {
              id: id('si'),
              current_period_start: start,
              current_period_end: start + periodSeconds(String(recurring.interval), Number(recurring.interval_count ?? 1)),
            },
          ],
        },
      };
      this.subscriptions.set(sub.id as string, sub);
      session.subscription = sub.id;
    }
    return session;
  }

  /** The next period of a subscription was paid: its items move on and the paid invoice is answered. */
  renew(subscriptionId: string): Json {
    const sub = this.subscriptions.get(subscriptionId)!;
    const item = (sub.items as { data: Json[] }).data[0]!;
    const start = Number(item.current_period_end);
    const end = start + periodSeconds(String(sub.interval), Number(sub.interval_count));
    item.current_period_start = start;
    item.current_period_end = end;
    return this.invoice(sub, start, end, 'subscription_cycle');
  }

  invoice(sub: Json, start: number, end: number, reason: string): Json {
    return {
      id: id('in'),
      object: 'invoice',
      status: 'paid',
      billing_reason: reason,
      customer: sub.customer,
      parent: { type: 'subscription_details', subscription_details: { subscription: sub.id, metadata: sub.metadata } },
      lines: { object: 'list', data: [{ id: id('il'), object: 'line_item', period: { start, end } }] },
    };
  }

  firstInvoice(subscriptionId: string): Json {
    const sub = this.subscriptions.get(subscriptionId)!;
    const item = (sub.items as { data: Json[] }).data[0]!;
    return this.invoice(sub, Number(item.current_period_start), Number(item.current_period_end), 'subscription_create');
  }

  /** Pays on the hosted page's behalf and delivers what Stripe would: the completed session (and first invoice). */
  async payAndNotify(sessionId: string): Promise<Delivery[]> {
    const session = this.pay(sessionId);
    const deliveries = [await this.deliver('checkout.session.completed', session)];
    if (typeof session.subscription === 'string')
      deliveries.push(await this.deliver('invoice.paid', this.firstInvoice(session.subscription)));
    return deliveries;
  }

  private json(res: http.ServerResponse, status: number, body: unknown): void {
    res
      .writeHead(status, { 'content-type': 'application/json', 'request-id': id('req'), 'stripe-version': apiVersion })
      .end(JSON.stringify(body));
  }

  private error(res: http.ServerResponse, status: number, type: string, message: string): void {
    this.json(res, status, { error: { type, message } });
  }

  private async route(req: http.IncomingMessage, body: string, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    const path = url.pathname;
    if (path.startsWith('/pay/')) return this.checkoutPage(req, path, res);
    const form = decodeForm(body);
    this.calls.push({ method: req.method ?? '', path, form, headers: req.headers });
    if (req.headers.authorization !== `Bearer ${this.secretKey}`)
      return this.error(res, 401, 'invalid_request_error', 'Invalid API Key provided');
    if (this.failWith !== null)
      return this.error(res, this.failWith, this.failWith >= 500 ? 'api_error' : 'invalid_request_error', 'simulated failure');
    if (req.method === 'POST' && path === '/v1/checkout/sessions') return this.createSession(form, res);
    const sessionMatch = /^\/v1\/checkout\/sessions\/([\w]+)$/.exec(path);
    if (req.method === 'GET' && sessionMatch) {
      const session = this.sessions.get(sessionMatch[1]!);
      return session ? this.json(res, 200, session) : this.error(res, 404, 'invalid_request_error', 'No such checkout.session');
    }
    const expireMatch = /^\/v1\/checkout\/sessions\/([\w]+)\/expire$/.exec(path);
    if (req.method === 'POST' && expireMatch) {
      const session = this.sessions.get(expireMatch[1]!);
      if (!session) return this.error(res, 404, 'invalid_request_error', 'No such checkout.session');
      if (session.status !== 'open')
        return this.error(res, 400, 'invalid_request_error', 'Only Checkout Sessions with a status in ["open"] can be expired.');
      session.status = 'expired';
      return this.json(res, 200, session);
    }
    const subMatch = /^\/v1\/subscriptions\/([\w]+)$/.exec(path);
    const sub = subMatch ? this.subscriptions.get(subMatch[1]!) : undefined;
    if (subMatch && !sub) return this.error(res, 404, 'invalid_request_error', 'No such subscription');
    if (sub && req.method === 'GET') return this.json(res, 200, sub);
    if (sub && req.method === 'POST') {
      if (form.cancel_at_period_end !== undefined) sub.cancel_at_period_end = form.cancel_at_period_end === 'true';
      return this.json(res, 200, sub);
    }
    if (sub && req.method === 'DELETE') {
      sub.status = 'canceled';
      sub.canceled_at = now();
      return this.json(res, 200, sub);
    }
    return this.error(res, 404, 'invalid_request_error', `Unrecognized request URL (${req.method}: ${path})`);
  }

  private createSession(form: Record<string, unknown>, res: http.ServerResponse): void {
    const items = form.line_items as Json[] | undefined;
    const price = items?.[0]?.price_data as Json | undefined;
    if (!price || !form.success_url || !form.cancel_url || !form.mode)
      return this.error(res, 400, 'invalid_request_error', 'Missing required param');
    const unitAmount = Number(price.unit_amount);
    if (!Number.isInteger(unitAmount) || unitAmount < 50)
      return this.error(res, 400, 'invalid_request_error', 'Amount must be at least 50 cents');
    const sessionId = id('cs');
    const session: Json = {
      id: sessionId,
      object: 'checkout.session',
      mode: form.mode,
      status: 'open',
      payment_status: 'unpaid',
      amount_total: unitAmount * Number(items![0]!.quantity ?? 1),
      currency: price.currency,
      client_reference_id: form.client_reference_id ?? null,
      metadata: form.metadata ?? {},
      customer_email: form.customer_email ?? null,
      success_url: form.success_url,
      cancel_url: form.cancel_url,
      subscription: null,
      url: `${this.url}/pay/${sessionId}`,
      line_items: items,
      subscription_metadata: (form.subscription_data as Json | undefined)?.metadata ?? {},
      allow_promotion_codes: form.allow_promotion_codes === 'true' ? true : null,
    };
    this.sessions.set(sessionId, session);
    this.json(res, 200, session);
  }

  /** The hosted page: GET shows the amount and a Pay button; POST pays, delivers the webhooks and redirects. */
  private async checkoutPage(req: http.IncomingMessage, path: string, res: http.ServerResponse): Promise<void> {
    const sessionId = path.split('/')[2] ?? '';
    const session = this.sessions.get(sessionId);
    if (!session) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('No such session');
      return;
    }
    if (req.method === 'POST') {
      const deliveries = await this.payAndNotify(sessionId);
      if (deliveries.some((delivery) => delivery.status >= 300)) {
        res.writeHead(502, { 'content-type': 'text/plain' }).end(`webhook refused: ${JSON.stringify(deliveries)}`);
        return;
      }
      res.writeHead(303, { location: String(session.success_url) }).end();
      return;
    }
    const amount = (Number(session.amount_total) / 100).toFixed(2);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html><head><title>Checkout</title></head><body>
<h1>Test checkout</h1><p id="amount">${amount} ${String(session.currency).toUpperCase()}</p>
<form method="post" action="/pay/${sessionId}"><button type="submit">Pay</button></form>
<a href="${String(session.cancel_url)}">Cancel</a></body></html>`);
  }
}

export async function startStripeServer(secretKey = 'sk_test_modelgate', webhookSecret = 'whsec_modelgate_test'): Promise<StripeServer> {
  return new StripeServer(secretKey, webhookSecret).start();
}
