import { useEffect, useState } from 'preact/hooks';

/** The current location as the views read it. */
export interface Route {
  path: string;
  query: URLSearchParams;
}

const listeners = new Set<() => void>();

function current(): Route {
  return { path: window.location.pathname, query: new URLSearchParams(window.location.search) };
}

/** Goes to `href` (a path with an optional query) without reloading; the URL is the view's state. */
export function navigate(href: string, options: { replace?: boolean } = {}): void {
  if (options.replace) window.history.replaceState(null, '', href);
  else window.history.pushState(null, '', href);
  for (const listener of listeners) listener();
  window.scrollTo(0, 0);
}

/** The current route; re-renders on navigation and on the browser's back and forward. */
export function useRoute(): Route {
  const [route, setRoute] = useState(current);
  useEffect(() => {
    const update = () => setRoute(current());
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return route;
}

/** `path?query` from parameters, leaving out empty ones. */
export function href(
  path: string,
  params: Record<string, string | number | null | undefined> = {},
): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== null && value !== undefined && value !== '') query.set(key, String(value));
  }
  const text = query.toString();
  return text === '' ? path : `${path}?${text}`;
}
