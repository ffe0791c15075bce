/** A value or a promise of it: adapters may be synchronous (better-sqlite3) or asynchronous (fs). */
export type MaybePromise<T> = T | Promise<T>;
