import type { ComponentChildren } from 'preact';
import type { Loaded } from '../api.js';
import { Link } from './link.js';

/** A run status as a coloured badge with its word (colour is never the only signal). */
export function StatusBadge(props: { status: string }) {
  const known = ['completed', 'failed', 'cancelled', 'running'].includes(props.status)
    ? props.status
    : 'other';
  return <span class={`badge status-${known}`}>{props.status}</span>;
}

/** A time, in the user's locale, with the stored ISO value as its machine-readable form. */
export function Time(props: { value: string | number | null }) {
  if (props.value === null) return <span class="muted">—</span>;
  const date = new Date(props.value);
  if (Number.isNaN(date.getTime())) return <span>{String(props.value)}</span>;
  return (
    <time dateTime={date.toISOString()} title={date.toISOString()}>
      {date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' })}
    </time>
  );
}

/** A byte count for people. */
export function Bytes(props: { value: number | null }) {
  if (props.value === null) return <span class="muted">—</span>;
  const value = props.value;
  const text =
    value < 1024
      ? `${value} B`
      : value < 1024 * 1024
        ? `${(value / 1024).toFixed(1)} KB`
        : `${(value / 1024 / 1024).toFixed(1)} MB`;
  return <span>{text}</span>;
}

/** A short id with the full id for copy and hover. */
export function ShortId(props: { id: string }) {
  return (
    <code class="id" title={props.id}>
      {props.id.slice(0, 8)}
    </code>
  );
}

/** A link to a run, session or task episode, showing its short id. */
export function IdLink(props: { to: 'runs' | 'sessions' | 'tasks'; id: string }) {
  return (
    <Link href={`/${props.to}/${props.id}`}>
      <ShortId id={props.id} />
    </Link>
  );
}

/** Shows a read in progress, its error, or its data. */
export function Loading<T>(props: { loaded: Loaded<T>; children: (data: T) => ComponentChildren }) {
  const { loaded } = props;
  if (loaded.state === 'loading') {
    return (
      <p class="muted" role="status">
        Loading…
      </p>
    );
  }
  if (loaded.state === 'error') {
    return (
      <div class="error-box" role="alert">
        <strong>Could not load this view.</strong> {loaded.error.message}
      </div>
    );
  }
  return <>{props.children(loaded.data)}</>;
}

/** "First page" and "Next page" links: every page has its own URL, so Back returns to the previous one. */
export function Pager(props: { first: string | null; next: string | null; label: string }) {
  if (props.first === null && props.next === null) return null;
  return (
    <nav class="pager" aria-label={`${props.label} pages`}>
      {props.first !== null && <Link href={props.first}>First page</Link>}
      {props.next !== null && <Link href={props.next}>Next page →</Link>}
    </nav>
  );
}

/** A key–value list. */
export function Fields(props: { fields: Array<[string, ComponentChildren]> }) {
  return (
    <dl class="fields">
      {props.fields.map(([name, value]) => (
        <div key={name}>
          <dt>{name}</dt>
          <dd>{value ?? <span class="muted">—</span>}</dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * Preformatted text in a block that scrolls: a named region the keyboard can reach (WCAG 2.1.1:
 * a scrollable area must be scrollable without a mouse).
 */
export function Scrollable(props: { label: string; class?: string; children: ComponentChildren }) {
  return (
    <section
      class={`scrollable ${props.class ?? ''}`}
      aria-label={props.label}
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must take keyboard focus to be scrolled
      tabIndex={0}
    >
      <pre>{props.children}</pre>
    </section>
  );
}

/** JSON, indented, in a scrollable block. */
export function JsonBlock(props: { value: unknown; label?: string }) {
  return (
    <Scrollable label={props.label ?? 'JSON'} class="json">
      {JSON.stringify(props.value, null, 2)}
    </Scrollable>
  );
}
