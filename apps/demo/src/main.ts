#!/usr/bin/env node
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArguments, usage } from './arguments.js';
import { runChat } from './chat-command.js';
import { exitWhenOutputCloses } from './closed-output.js';
import { defaultDemoHome } from './demo-home.js';
import { selectModel } from './models/select-model.js';
import { renderChecks, renderReport } from './render-report.js';
import { renderResume, runResume } from './resume-command.js';
import { runDemo, SCRIPT } from './scenario.js';
import { UsageError } from './usage-error.js';
import { runVerify } from './verify-command.js';
import { DEMO_VERSION } from './version.js';

/**
 * The demo's entry. `pnpm demo` (the root script) builds the packages and runs this file with
 * the user's arguments: the scripted demo by default, or `chat`, `resume`, `verify`.
 */

const print = (line = '') => process.stdout.write(`${line}\n`);
const fail = (line: string) => process.stderr.write(`${line}\n`);

/** This script's own path, to start it again as a fresh process (the resume). */
function ownEntry(): string {
  const started = process.argv[1];
  if (started !== undefined && existsSync(started)) return resolve(started);
  return fileURLToPath(import.meta.url);
}

async function main(argv: readonly string[]): Promise<number> {
  const defaultHome = defaultDemoHome();
  const args = parseArguments(argv);
  if (args.command === 'help') {
    process.stdout.write(usage(defaultHome));
    return 0;
  }
  if (args.command === 'version') {
    print(DEMO_VERSION);
    return 0;
  }
  const home = args.home === null ? defaultHome : resolve(args.home);
  const isDefaultHome = args.home === null || home === defaultHome;

  if (args.command === 'verify') {
    const result = await runVerify(home);
    if (args.json) print(JSON.stringify(result, null, 2));
    else for (const line of renderChecks(result.checks)) print(line);
    return reportFailures(result.checks);
  }

  const model = selectModel(args.model, process.env);
  if (args.command === 'resume') {
    const result = await runResume({
      home,
      sessionId: args.session as string,
      input: args.input ?? SCRIPT.resume.input,
      model,
    });
    if (args.json) print(JSON.stringify(result));
    else for (const line of renderResume(result)) print(line);
    return 0;
  }
  if (args.command === 'chat') {
    await runChat({
      home,
      isDefaultHome,
      model,
      input: process.stdin,
      output: process.stdout,
      interactive: process.stdin.isTTY === true,
    });
    return 0;
  }

  const report = await runDemo({
    home,
    isDefaultHome,
    model,
    modelSpec: args.model,
    entry: ownEntry(),
    progress: args.json ? () => {} : print,
    aiSdk: args.aiSdk,
  });
  if (args.json) {
    print(JSON.stringify(report, null, 2));
  } else {
    print('');
    for (const line of renderReport(report)) print(line);
  }
  return reportFailures(report.checks);
}

function reportFailures(
  checks: ReadonlyArray<{ name: string; status: string; detail: string }>,
): number {
  const failed = checks.filter((check) => check.status === 'failed');
  for (const check of failed) fail(`demo check failed: ${check.name}: ${check.detail}`);
  return failed.length === 0 ? 0 : 1;
}

exitWhenOutputCloses();
main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof UsageError) {
      fail(`episodic demo: ${error.message}`);
      fail('Run "pnpm demo --help" for the usage.');
      process.exitCode = 2;
      return;
    }
    fail(`episodic demo failed: ${error instanceof Error ? error.message : String(error)}`);
    if (process.env.EPISODIC_DEMO_DEBUG && error instanceof Error && error.stack) fail(error.stack);
    process.exitCode = 1;
  },
);
