import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

/** One file of the browser app. */
export interface StaticAsset {
  body: Uint8Array<ArrayBuffer>;
  type: string;
}

/** The browser app's files, read into memory once (a few hundred KB): no path ever reaches the disk. */
export interface StaticAssets {
  /** `index.html`, served for every page URL (the app routes in the browser); null when not built. */
  readonly index: StaticAsset | null;
  /** A file by its URL path, e.g. `/assets/index-abc123.js`. */
  get(path: string): StaticAsset | undefined;
}

/** Where the built browser app is: `dist/client` beside the built server (`dist/index.js`). */
export function defaultClientDirectory(): string {
  const besideServer = fileURLToPath(new URL('./client', import.meta.url));
  if (existsSync(besideServer)) return besideServer;
  // Running from sources (tests): the package's own dist.
  return fileURLToPath(new URL('../../dist/client', import.meta.url));
}

function walk(directory: string, root: string, files: Map<string, StaticAsset>): void {
  for (const name of readdirSync(directory)) {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) {
      walk(path, root, files);
      continue;
    }
    const urlPath = `/${relative(root, path).split(sep).join('/')}`;
    files.set(urlPath, {
      body: new Uint8Array(readFileSync(path)),
      type: TYPES[extname(name)] ?? 'application/octet-stream',
    });
  }
}

/** Loads the browser app from `directory` (missing: the UI serves a page saying how to build it). */
export function loadStaticAssets(directory: string): StaticAssets {
  const files = new Map<string, StaticAsset>();
  if (existsSync(directory)) walk(directory, directory, files);
  return {
    index: files.get('/index.html') ?? null,
    get: (path) => files.get(path),
  };
}
