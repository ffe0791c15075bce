import { resolve } from 'node:path';
import type { RunRecord } from '@episodic/core';
import { recordRunSpans } from '@episodic/interop';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import type { CommandHandler } from '../command-spec.js';
import { runIdArgument, sessionIdArgument } from '../id-arguments.js';
import { flag, listOption, optionalDate, optionalString } from '../option-values.js';
import { createStyles, sanitizeForTerminal } from '../output.js';
import { createProgress } from '../progress.js';
import { withStores } from '../stores.js';
import { UsageError } from '../usage-error.js';
import { VERSION } from '../version.js';
import { createDerivedIdGenerator } from './derived-id-generator.js';
import { createLineWriter } from './line-writer.js';

function compareText(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

/** `export --otel FILE`: the selected runs as OTLP JSON traces (OpenTelemetry GenAI conventions). */
export const exportOtel: CommandHandler = async (context) => {
  const { options, globals } = context;
  const target = optionalString(options, 'otel') as string;
  const givenSession = optionalString(options, 'session-id');
  const givenRunIds = listOption(options, 'run-id', true);
  const from = optionalDate(options, 'from', 'start');
  const to = optionalDate(options, 'to', 'end');
  const all = flag(options, 'all');
  const includeContent = flag(options, 'otel-content');
  const serviceName = optionalString(options, 'service-name') ?? 'episodic';
  if (optionalString(options, 'output') !== undefined)
    throw new UsageError(
      'Give --otel FILE or --output FILE, not both: --otel writes traces, --output an Episodic export.',
    );
  if (
    optionalString(options, 'scope') !== undefined ||
    flag(options, 'global') ||
    flag(options, 'all-scopes')
  )
    throw new UsageError(
      '--otel exports runs as traces; ledger events are not part of it: leave out --scope, --global and --all-scopes.',
    );
  if (
    [
      givenSession !== undefined,
      givenRunIds !== undefined,
      from !== undefined || to !== undefined,
      all,
    ].filter(Boolean).length !== 1
  )
    throw new UsageError(
      'Choose the runs to export with exactly one of --session-id ID, --run-id ID (repeatable), --from/--to DATE, or --all.',
    );
  if (from !== undefined && to !== undefined && from > to)
    throw new UsageError(`--from ${from} is after --to ${to}: swap them.`, 'VALIDATION_ERROR');
  if (globals.json && target === '-')
    throw new UsageError(
      '--json prints a receipt on stdout, so the traces need --otel FILE (or leave out --json to write them to stdout).',
    );

  // Whole ids, or unique prefixes of stored ones (checked after the usage errors above).
  const sessionId =
    givenSession === undefined
      ? undefined
      : await sessionIdArgument(context, givenSession, '--session-id');
  const runIds =
    givenRunIds === undefined
      ? undefined
      : await Promise.all(givenRunIds.map((id) => runIdArgument(context, id, '--run-id')));
  const warnings: string[] = [];
  let damaged = 0;
  const progress = createProgress(context, 'export --otel');
  const runs: RunRecord[][] = [];
  try {
    await withStores(context, async (stores) => {
      let ids: string[];
      if (runIds !== undefined) {
        ids = [...new Set(runIds)].sort();
      } else {
        const listed = await stores.runs.list({
          ...(sessionId === undefined ? {} : { sessionId: sessionId.toLowerCase() }),
          ...(from === undefined ? {} : { from }),
          ...(to === undefined ? {} : { to }),
        });
        for (const error of listed.errors)
          warnings.push(`skipped ${error.location}: ${error.message}`);
        ids = [...listed.runs]
          .sort(
            (left, right) =>
              compareText(left.startedAt, right.startedAt) || compareText(left.runId, right.runId),
          )
          .map((run) => run.runId);
      }
      for (const [index, runId] of ids.entries()) {
        progress.update(index, ids.length, 'runs');
        const run = await stores.runs.read(runId);
        if (run.header === null) {
          warnings.push(`skipped run ${runId}: it has no readable header (run "episodic doctor")`);
          continue;
        }
        if (run.errors.length > 0) {
          damaged += run.errors.length;
          warnings.push(
            `run ${runId}: ${run.errors.length} damaged line${run.errors.length === 1 ? '' : 's'} left out (run "episodic doctor")`,
          );
        }
        runs.push(run.records);
      }
    });
  } finally {
    progress.finish();
  }

  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({
    resource: defaultResource().merge(resourceFromAttributes({ 'service.name': serviceName })),
    idGenerator: createDerivedIdGenerator(
      runs.map((records) => String((records[0] as { run_id?: unknown }).run_id)).join(','),
    ),
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
  });
  const summary = recordRunSpans(runs, {
    tracer: provider.getTracer('@episodic/cli', VERSION),
    includeContent,
  });
  await provider.forceFlush();
  const spans = exporter.getFinishedSpans();
  await provider.shutdown();
  const bytes = JsonTraceSerializer.serializeRequest(spans) ?? new Uint8Array();
  const writer = createLineWriter(target === '-' ? undefined : target, context.io.stdout);
  let written: { bytes: number; sha256: string };
  try {
    writer.line(JSON.parse(new TextDecoder().decode(bytes)));
    written = writer.commit();
  } catch (error) {
    writer.abort();
    throw error;
  }
  const styles = createStyles(globals.color);
  if (!globals.quiet)
    for (const warning of warnings)
      context.io.stderr(`${styles.yellow('warning:')} ${sanitizeForTerminal(warning)}\n`);
  const what = `${summary.runs} run${summary.runs === 1 ? '' : 's'} as ${spans.length} span${spans.length === 1 ? '' : 's'} (${summary.spans.chat} chat, ${summary.spans.execute_tool} execute_tool)${includeContent ? ' with content' : ''}`;
  if (target === '-') {
    if (!globals.quiet) context.io.stderr(`Exported ${what} (${written.bytes} bytes).\n`);
    return {};
  }
  return {
    receipt: {
      format: 'otlp-json',
      output: resolve(target),
      selection: {
        session_id: sessionId?.toLowerCase() ?? null,
        run_ids: runIds === undefined ? null : [...new Set(runIds)].sort(),
        from: from ?? null,
        to: to ?? null,
        all,
      },
      runs: summary.runs,
      spans: { total: spans.length, ...summary.spans },
      content: includeContent,
      service_name: serviceName,
      bytes: written.bytes,
      sha256: written.sha256,
      skipped_damaged_lines: damaged,
      warnings,
    },
    render: (write) => {
      if (globals.quiet) return;
      write(
        `${styles.green('Exported')} ${what} to ${sanitizeForTerminal(resolve(target))} (OTLP JSON, ${written.bytes} bytes).\n`,
      );
    },
  };
};
