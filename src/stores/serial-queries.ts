/**
 * One query at a time on one PostgreSQL connection. pg queues a query sent
 * while another runs, but that is deprecated (a warning now, an error in pg 9):
 * whoever shares a connection — the lock path's shared connection serves every
 * uncontended conversation at once — sends through this queue instead. Order is
 * the order of the calls; a failed query does not stop the ones behind it.
 */
import type pg from 'pg';

export interface Queryable {
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
}

export class SerialQueries implements Queryable {
  readonly #client: Queryable;
  #tail: Promise<unknown> = Promise.resolve();

  constructor(client: Queryable) {
    this.#client = client;
  }

  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>> {
    const run = this.#tail.then(() => this.#client.query<R>(text, values));
    this.#tail = run.catch(() => undefined);
    return run;
  }
}
