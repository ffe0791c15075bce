/** A duration for people: `850 ms`, `12.3 s`, `4 min 05 s`, `2 h 03 min`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const whole = Math.round(seconds);
  const minutes = Math.floor(whole / 60);
  if (minutes < 60) return `${minutes} min ${String(whole % 60).padStart(2, '0')} s`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
}

/** A run's duration, or a dash while it has not ended. */
export function Duration(props: { ms: number | null }) {
  if (props.ms === null) return <span class="muted">—</span>;
  return <span>{formatDuration(props.ms)}</span>;
}

const compact = (value: number): string =>
  value < 10_000 ? String(value) : `${(value / 1000).toFixed(value < 100_000 ? 1 : 0)}k`;

/** Tokens in and out (`12.4k in · 812 out`), or a dash when no response reported usage. */
export function Tokens(props: { input: number | null; output: number | null }) {
  if (props.input === null || props.output === null) return <span class="muted">—</span>;
  return (
    <span title={`${props.input} input tokens, ${props.output} output tokens`}>
      {compact(props.input)} in · {compact(props.output)} out
    </span>
  );
}

/** A row's title (the full text in a tooltip), or a muted placeholder. The row's id is its link. */
export function RowTitle(props: { title: string | null; placeholder: string }) {
  if (props.title === null) return <span class="muted">{props.placeholder}</span>;
  return (
    <span class="row-title" title={props.title}>
      {props.title}
    </span>
  );
}
