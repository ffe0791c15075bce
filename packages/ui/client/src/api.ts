import { useEffect, useState } from 'preact/hooks';
import type { OverviewResponse } from '../../src/api/api-types.js';

/** An error the UI's API answered with. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** GETs `/api/<path>` as JSON (the token travels in the HttpOnly cookie). */
export async function getJson<T>(path: string): Promise<T> {
  const response = await fetch(`/api/${path}`, {
    credentials: 'same-origin',
    headers: { accept: 'application/json' },
  });
  const type = response.headers.get('content-type') ?? '';
  if (!type.includes('application/json')) {
    const text = await response.text();
    throw new ApiFailure(response.status, 'HTTP_ERROR', text || `HTTP ${response.status}`);
  }
  const body = (await response.json()) as T & { error?: { code: string; message: string } };
  if (!response.ok) {
    throw new ApiFailure(
      response.status,
      body.error?.code ?? 'HTTP_ERROR',
      body.error?.message ?? `HTTP ${response.status}`,
    );
  }
  return body;
}

/** The state of one API read. */
export type Loaded<T> =
  | { state: 'loading' }
  | { state: 'error'; error: ApiFailure | Error }
  | { state: 'ready'; data: T };

/** Reads `/api/<path>` whenever `path` changes (null: nothing to read yet). */
export function useApi<T>(path: string | null): Loaded<T> {
  const [loaded, setLoaded] = useState<Loaded<T>>({ state: 'loading' });
  useEffect(() => {
    if (path === null) return undefined;
    let live = true;
    setLoaded({ state: 'loading' });
    getJson<T>(path).then(
      (data) => live && setLoaded({ state: 'ready', data }),
      (error: Error) => live && setLoaded({ state: 'error', error }),
    );
    return () => {
      live = false;
    };
  }, [path]);
  return loaded;
}

let overview: Promise<OverviewResponse> | undefined;

/** The home's overview (stores, scopes, the filter vocabularies), read once per page load. */
export function useOverview(): Loaded<OverviewResponse> {
  const [loaded, setLoaded] = useState<Loaded<OverviewResponse>>({ state: 'loading' });
  useEffect(() => {
    let live = true;
    overview ??= getJson<OverviewResponse>('overview');
    overview.then(
      (data) => live && setLoaded({ state: 'ready', data }),
      (error: Error) => live && setLoaded({ state: 'error', error }),
    );
    return () => {
      live = false;
    };
  }, []);
  return loaded;
}
