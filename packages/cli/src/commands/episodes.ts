import {
  type ContentKind,
  createMemoryLedger,
  type Ledger,
  type LedgerEvent,
  type LedgerEventType,
  type LedgerOptions,
  type LedgerPage,
  type NewLedgerEvent,
  normalizeScope,
  type RetentionPolicyInput,
  resolveRetentionPolicy,
} from '@episodic/core';
import { canonicalJson, stringifyJson } from '@episodic/core/adapter';
import { CONTENT_KINDS, LEDGER_EVENT_TYPES } from '@episodic/core/schemas';
import { type EpisodicLedger, listScopes } from '@episodic/home';
import type { CommandContext, CommandHandler, OptionValues } from '../command-spec.js';
import { eventIdArgument } from '../event-id-argument.js';
import { foldEventType } from '../event-type.js';
import { relativeTime } from '../human-time.js';
import { withLedger } from '../ledger-access.js';
import { commandName, ledgerCommand, scopeFields } from '../ledger-command.js';
import { buildMetadataFilter } from '../metadata-conditions.js';
import { describeLedger, writeNotes } from '../notes.js';
import {
  confirmEveryScope,
  flag,
  isEveryScope,
  jsonArgument,
  jsonObjectArgument,
  listOption,
  optionalInteger,
  optionalString,
  optionalTimeMs,
  requiredString,
  type ScopeSelector,
  scopeSelector,
} from '../option-values.js';
import { createStyles, formatTsMs, renderTable, type Styles } from '../output.js';
import { createProgress } from '../progress.js';
import { parseRetentionPolicy } from '../retention-option.js';
import { otherScopesNote } from '../scope-summary.js';
import type { TimeEdge } from '../time-option.js';
import { UsageError } from '../usage-error.js';

function utf8Bytes(value: unknown): number {
  return value === undefined || value === null
    ? 0
    : Buffer.byteLength(canonicalJson(value, 'value'), 'utf8');
}

function eventsTable(
  events: readonly LedgerEvent[],
  includePayload: boolean,
  styles: Styles,
): string {
  const now = Date.now();
  return renderTable(
    events,
    [
      { header: 'TIME', value: (event) => relativeTime(event.ts_ms, now), fixed: true },
      { header: 'TYPE', value: (event) => event.type, max: 22, fixed: true },
      { header: 'SCOPE', value: (event) => event.scope, max: 20 },
      { header: 'SESSION', value: (event) => event.session_id, max: 24 },
      { header: 'POS', value: (event) => event.position, align: 'right', fixed: true },
      { header: 'AGENT', value: (event) => event.agent_id, max: 16 },
      {
        header: 'SUMMARY',
        value: (event) => (event.redacted ? `${event.summary} (redacted)` : event.summary),
        max: includePayload ? 40 : 60,
      },
      ...(includePayload
        ? [
            {
              header: 'PAYLOAD',
              value: (event: LedgerEvent) =>
                event.payload === undefined || event.payload === null
                  ? ''
                  : stringifyJson(event.payload),
              max: 50,
            },
          ]
        : []),
    ],
    styles,
  );
}

/** `--from TIME` or its older spelling `--from-ts-ms` (one of the two), in epoch ms. */
function timeBound(
  options: OptionValues,
  name: string,
  alias: string,
  edge: TimeEdge,
  now: number,
): number | undefined {
  const given = optionalTimeMs(options, name, edge, now);
  const aliased = optionalTimeMs(options, alias, edge, now);
  if (given !== undefined && aliased !== undefined) {
    throw new UsageError(`Give --${name} or --${alias}, not both: they are the same option.`);
  }
  return given ?? aliased;
}

/** Prints a page of events for a person: the table, the count and how to get more, then notes. */
function renderPage(
  context: CommandContext,
  page: LedgerPage,
  includePayload: boolean,
  notes: readonly string[],
) {
  return (write: (text: string) => void): void => {
    const styles = createStyles(context.globals.color, context.globals.width);
    if (page.events.length > 0) write(eventsTable(page.events, includePayload, styles));
    // A row another tool wrote that does not read is named, never silently left out.
    for (const row of page.damaged ?? []) {
      write(
        `${styles.yellow('damaged:')} event ${JSON.stringify(row.event_id)} (session ${row.session_id}, ${formatTsMs(row.ts_ms)}): ${row.error}\n`,
      );
    }
    const count = `${page.events.length} event${page.events.length === 1 ? '' : 's'}`;
    write(
      `${styles.dim(page.next_after_id === null ? count : `${count}; more with --after-id ${page.next_after_id}`)}\n`,
    );
    writeNotes(context, notes);
  };
}

/**
 * What a query that found nothing says: where it looked, whether the scope holds events the
 * filters left out, and which scopes hold events. After `--global` (the scope named global, as in
 * openclaw-mem), it also says how to read every scope, for a reader used to the older meaning.
 */
async function emptyNotes(
  context: CommandContext,
  ledger: Ledger,
  opened: Pick<EpisodicLedger, 'location'> & Partial<Pick<EpisodicLedger, 'database'>>,
  selector: ScopeSelector,
  sessionId?: string,
): Promise<string[]> {
  const where = describeLedger(opened.location);
  if (isEveryScope(selector)) return [`No events matched in ${where} (every scope).`];
  const scope = normalizeScope(selector.scope);
  const held = await ledger.query({ scope, limit: 1 });
  const notes = [
    held.events.length > 0
      ? `Scope "${scope}" holds events, but none matched${sessionId === undefined ? ' the filters' : ` session ${JSON.stringify(sessionId)}`} (${where}).`
      : `No events in scope "${scope}" (${where}).`,
  ];
  if (held.events.length === 0) {
    const others = otherScopesNote(opened, scope);
    if (others !== null) notes.push(others);
  }
  if (flag(context.options, 'global')) {
    notes.push(
      '--global is the scope named global (the same as --scope global, as in openclaw-mem); to read every scope, give --all-scopes.',
    );
  }
  return notes;
}

/** `episodes append`. */
export const append: CommandHandler = ledgerCommand(async (context) => {
  const { options } = context;
  const command = commandName(context);
  const scope = optionalString(options, 'scope');
  if (scope === undefined) {
    throw new UsageError(
      `"${command}" needs --scope SCOPE: every event belongs to one scope. Nothing was changed.`,
      'SCOPE_REQUIRED',
    );
  }
  const sessionId = requiredString(options, 'session-id', command);
  const agentId = requiredString(options, 'agent-id', command);
  const type = foldEventType(requiredString(options, 'type', command));
  const summary = requiredString(options, 'summary', command);
  const eventId = optionalString(options, 'event-id');
  const tsMs = optionalTimeMs(options, 'ts-ms', 'start');
  // 0 is what an unset clock writes: refused, as seed 002 refuses it.
  if (tsMs !== undefined && tsMs < 1) {
    throw new UsageError(
      `Invalid --ts-ms ${JSON.stringify(options['ts-ms'])}: the event time must be after 1970-01-01T00:00:00.000Z (epoch milliseconds 1 or more).`,
      'VALIDATION_ERROR',
    );
  }
  // Kept exactly: an integer beyond 2^53 is stored digit for digit, never rounded.
  const payload = await jsonArgument(context, 'payload-json', 'payload-file', true);
  const refs = await jsonObjectArgument(context, 'refs-json', 'refs-file', true);
  const metadata = await jsonObjectArgument(context, 'metadata-json');
  const payloadCap = optionalInteger(options, 'payload-cap-bytes', { min: 1, max: 1_000_000_000 });
  const refsCap = optionalInteger(options, 'refs-cap-bytes', { min: 1, max: 1_000_000_000 });
  const expectedPosition = optionalInteger(options, 'expected-position', { min: 0 });
  const allow = new Set<ContentKind>();
  for (const kind of listOption(options, 'allow', true) ?? []) {
    if (!(CONTENT_KINDS as readonly string[]).includes(kind)) {
      throw new UsageError(
        `Invalid --allow ${JSON.stringify(kind)}: use ${CONTENT_KINDS.join(', ')}.`,
        'VALIDATION_ERROR',
      );
    }
    allow.add(kind as ContentKind);
  }
  if (flag(options, 'allow-tool-output')) allow.add('tool_output');
  const redact = flag(options, 'redact-content');

  const event: NewLedgerEvent = {
    scope,
    session_id: sessionId,
    agent_id: agentId,
    type: type as LedgerEventType,
    summary,
    ...(eventId === undefined ? {} : { event_id: eventId }),
    ...(tsMs === undefined ? {} : { ts_ms: tsMs }),
    ...(payload === undefined ? {} : { payload: payload.value }),
    ...(refs === undefined ? {} : { refs }),
    ...(metadata === undefined ? {} : { metadata: metadata as NewLedgerEvent['metadata'] }),
  };
  const caps = {
    ...(payloadCap === undefined ? {} : { payloadBytes: payloadCap }),
    ...(refsCap === undefined ? {} : { refsBytes: refsCap }),
  };
  const ledgerOptions: LedgerOptions | undefined =
    Object.keys(caps).length > 0 ? { caps } : undefined;
  const call = {
    ...(allow.size > 0 ? { allow: [...allow] } : {}),
    ...(redact ? { redact: true } : {}),
  };
  // The reference in-memory ledger runs every rule (scope, type, caps, guards) without storage,
  // so invalid input is refused before the database is opened or created.
  await createMemoryLedger(ledgerOptions).append(event, call);
  const appended = await withLedger(
    context,
    (ledger) =>
      ledger.append(event, {
        ...call,
        ...(expectedPosition === undefined ? {} : { expectedPosition }),
      }),
    ledgerOptions === undefined ? {} : { ledger: ledgerOptions },
  );
  const stored = appended.event;
  const receipt = {
    duplicate: appended.duplicate,
    event: {
      event_id: stored.event_id,
      ts_ms: stored.ts_ms,
      scope: stored.scope,
      session_id: stored.session_id,
      agent_id: stored.agent_id,
      type: stored.type,
      summary: stored.summary,
      position: stored.position,
      payload_bytes: utf8Bytes(stored.payload),
      refs_bytes: utf8Bytes(stored.refs),
      payload_present: stored.payload !== undefined && stored.payload !== null,
      refs_present: stored.refs !== null,
      ...(stored.metadata === undefined ? {} : { metadata: stored.metadata }),
      redacted: stored.redacted,
      schema_version: stored.schema_version,
      created_at: stored.created_at,
    },
    caps: { payload_cap_bytes: payloadCap ?? 8192, refs_cap_bytes: refsCap ?? 4096 },
  };
  return {
    receipt,
    render: (write) => {
      if (context.globals.quiet) return;
      const styles = createStyles(context.globals.color, context.globals.width);
      const what = `${stored.type} event ${stored.event_id} to ${stored.scope}/${stored.session_id} (position ${stored.position})`;
      write(
        appended.duplicate
          ? `${styles.yellow('Already stored')} ${what}: a retry with the same id and content.\n`
          : `${styles.green('Appended')} ${what}.\n`,
      );
    },
  };
});

/** `episodes query`. */
export const query: CommandHandler = ledgerCommand(async (context) => {
  const { options } = context;
  const selector = scopeSelector(options, commandName(context));
  const sessionId = optionalString(options, 'session-id');
  // Folded like append's --type, deduplicated, in the order given (the receipt keeps that order).
  const types = listOption(options, 'type', true)?.map(foldEventType);
  const givenTypes = types === undefined ? undefined : [...new Set(types)];
  const now = Date.now();
  const fromTsMs = timeBound(options, 'from', 'from-ts-ms', 'start', now);
  const toTsMs = timeBound(options, 'to', 'to-ts-ms', 'end', now);
  const limit = optionalInteger(options, 'limit', { min: 1, max: 500 }) ?? 50;
  const afterId = optionalString(options, 'after-id');
  const includePayload = flag(options, 'include-payload');
  const filterJson = await jsonArgument(context, 'metadata-filter');
  const metadata = buildMetadataFilter(listOption(options, 'metadata', false), filterJson?.value);
  const request = {
    ...selector,
    ...(sessionId === undefined ? {} : { sessionId }),
    ...(givenTypes === undefined ? {} : { types: givenTypes as LedgerEventType[] }),
    ...(fromTsMs === undefined ? {} : { fromTsMs }),
    ...(toTsMs === undefined ? {} : { toTsMs }),
    limit,
    includePayload,
    ...(metadata === undefined ? {} : { metadata }),
  };
  await createMemoryLedger().query(request);
  const { page, notes, after } = await withLedger(
    context,
    async (ledger, opened) => {
      const after =
        afterId === undefined
          ? undefined
          : await eventIdArgument(ledger, selector, afterId, '--after-id');
      const found = await ledger.query({
        ...request,
        ...(after === undefined ? {} : { afterId: after }),
      });
      return {
        after,
        page: found,
        notes:
          found.events.length === 0 && afterId === undefined
            ? await emptyNotes(context, ledger, opened, selector)
            : [],
      };
    },
    { readOnly: true },
  );
  const receipt = {
    ...scopeFields(selector),
    filters: {
      session_id: sessionId ?? null,
      from_ts_ms: fromTsMs ?? null,
      to_ts_ms: toTsMs ?? null,
      types: givenTypes ?? [],
      limit,
      after_id: after ?? null,
      include_payload: includePayload,
      metadata: metadata ?? null,
    },
    count: page.events.length,
    events: page.events,
    next_after_id: page.next_after_id,
    ...(page.damaged === undefined ? {} : { damaged: page.damaged }),
    notes,
  };
  return {
    receipt,
    render: renderPage(context, page, includePayload, notes),
    stringify: stringifyJson,
  };
});

/** `episodes replay SESSION_ID`. */
export const replay: CommandHandler = ledgerCommand(async (context) => {
  const { options } = context;
  const selector = scopeSelector(options, commandName(context));
  const sessionId = context.positionals[0] as string;
  const limit = optionalInteger(options, 'limit', { min: 1, max: 500 }) ?? 200;
  const afterId = optionalString(options, 'after-id');
  const includePayload = flag(options, 'include-payload');
  const replayOptions = { ...selector, limit, includePayload };
  await createMemoryLedger().replay(sessionId, replayOptions);
  const { page, notes, after } = await withLedger(
    context,
    async (ledger, opened) => {
      const after =
        afterId === undefined
          ? undefined
          : await eventIdArgument(ledger, selector, afterId, '--after-id');
      const found = await ledger.replay(sessionId, {
        ...replayOptions,
        ...(after === undefined ? {} : { afterId: after }),
      });
      return {
        after,
        page: found,
        notes:
          found.events.length === 0 && afterId === undefined
            ? await emptyNotes(context, ledger, opened, selector, sessionId)
            : [],
      };
    },
    { readOnly: true },
  );
  const receipt = {
    ...scopeFields(selector),
    session_id: sessionId,
    count: page.events.length,
    limit,
    after_id: after ?? null,
    include_payload: includePayload,
    events: page.events,
    next_after_id: page.next_after_id,
    ...(page.damaged === undefined ? {} : { damaged: page.damaged }),
    notes,
  };
  return {
    receipt,
    render: renderPage(context, page, includePayload, notes),
    stringify: stringifyJson,
  };
});

/** What `episodes gc` deleted (or would delete) in one scope. */
interface ScopeCollection {
  scope: string;
  deleted_total: number;
  deleted_by_type: Record<LedgerEventType, number>;
}

/** `episodes gc`. */
export const gc: CommandHandler = ledgerCommand(async (context) => {
  const { options } = context;
  const command = commandName(context);
  const selector = scopeSelector(options, command);
  const policy: RetentionPolicyInput | undefined = parseRetentionPolicy(
    listOption(options, 'policy', false),
  );
  const nowMs = optionalTimeMs(options, 'now-ts-ms', 'start') ?? Date.now();
  const dryRun = flag(options, 'dry-run');
  const everyScope = isEveryScope(selector);
  if (everyScope) confirmEveryScope(options, command, 'deletes expired events');
  const request = { ...selector, nowMs, ...(policy === undefined ? {} : { policy }), dryRun };
  await createMemoryLedger().gc({ ...request, dryRun: true });
  const effective = resolveRetentionPolicy(policy);
  const expiring = LEDGER_EVENT_TYPES.filter((type) => effective[type] !== null);
  const progress = createProgress(context, dryRun ? 'gc (dry run)' : 'gc');
  // One scope at a time (every scope that holds events, with --all-scopes), one type per call
  // (every other type kept): the receipt counts per scope and progress names what is collected.
  const collect = async (ledger: Ledger, scopes: readonly string[]) => {
    const collected: ScopeCollection[] = [];
    for (const [scopeIndex, scope] of scopes.entries()) {
      const byType = Object.fromEntries(LEDGER_EVENT_TYPES.map((type) => [type, 0])) as Record<
        LedgerEventType,
        number
      >;
      for (const [index, type] of expiring.entries()) {
        progress.update(
          scopeIndex * expiring.length + index,
          scopes.length * expiring.length,
          scopes.length === 1 ? type : `${scope} ${type}`,
        );
        const onlyThisType = Object.fromEntries(
          LEDGER_EVENT_TYPES.map((other) => [other, other === type ? effective[type] : null]),
        );
        const result = await ledger.gc({ scope, nowMs, policy: onlyThisType, dryRun });
        byType[type] = result.deleted_by_type[type];
      }
      const total = Object.values(byType).reduce((sum, count) => sum + count, 0);
      collected.push({ scope, deleted_total: total, deleted_by_type: byType });
    }
    progress.update(1, 1);
    return collected;
  };
  const byScope = await (everyScope
    ? import('../stores.js').then(({ withStores }) =>
        withStores(
          context,
          async (stores) =>
            collect(
              stores.ledger,
              (await listScopes(stores)).map((entry) => entry.scope),
            ),
          { readOnly: dryRun },
        ),
      )
    : withLedger(context, (ledger) => collect(ledger, [normalizeScope(selector.scope)]), {
        readOnly: dryRun,
      })
  ).finally(() => progress.finish());
  const deletedByType = Object.fromEntries(
    LEDGER_EVENT_TYPES.map((type) => [
      type,
      byScope.reduce((sum, entry) => sum + entry.deleted_by_type[type], 0),
    ]),
  ) as Record<LedgerEventType, number>;
  const deletedTotal = byScope.reduce((sum, entry) => sum + entry.deleted_total, 0);
  const receipt = {
    ...scopeFields(selector),
    dry_run: dryRun,
    now_ts_ms: nowMs,
    deleted_total: deletedTotal,
    deleted_by_type: deletedByType,
    by_scope: byScope,
    policy_days: effective,
  };
  return {
    receipt,
    render: (write) => {
      const styles = createStyles(context.globals.color, context.globals.width);
      if (!context.globals.quiet) {
        const events = `${deletedTotal} event${deletedTotal === 1 ? '' : 's'}`;
        const where = everyScope
          ? ` in ${byScope.length} scope${byScope.length === 1 ? '' : 's'}`
          : ` in scope ${byScope[0]?.scope}`;
        write(
          dryRun
            ? `${styles.yellow('Dry run:')} ${events} would be deleted${where} (now ${formatTsMs(nowMs)}); nothing was deleted.\n`
            : `${styles.green('Deleted')} ${events}${where} past their retention (now ${formatTsMs(nowMs)}).\n`,
        );
      }
      if (everyScope && byScope.length > 0) {
        write(
          renderTable(
            byScope,
            [
              { header: 'SCOPE', value: (entry) => entry.scope },
              {
                header: dryRun ? 'WOULD DELETE' : 'DELETED',
                value: (entry) => entry.deleted_total,
                align: 'right',
              },
            ],
            styles,
          ),
        );
      }
      write(
        renderTable(
          LEDGER_EVENT_TYPES,
          [
            { header: 'TYPE', value: (type) => type },
            {
              header: 'RETENTION',
              value: (type) => (effective[type] === null ? 'forever' : `${effective[type]} days`),
            },
            {
              header: dryRun ? 'WOULD DELETE' : 'DELETED',
              value: (type) => deletedByType[type],
              align: 'right',
            },
          ],
          styles,
        ),
      );
      if (dryRun && everyScope && deletedTotal > 0 && !context.globals.quiet) {
        write(styles.dim(`Run it again with --yes instead of --dry-run to delete them.\n`));
      }
    },
  };
});
