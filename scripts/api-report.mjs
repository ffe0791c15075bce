// The API report of every public entry point of every published package, with API Extractor.
//
//   node scripts/api-report.mjs           check: fails when a package's public API differs from its
//                                         committed report (run by `pnpm lint`)
//   node scripts/api-report.mjs --update  rewrites the reports (`pnpm api:update`); commit them
//
// Reports live at packages/<name>/api/<entry>.api.md, one per subpath export that carries types
// ("." is index.api.md, "./testing/child" is testing-child.api.md). `./internal` entries are
// outside semver and have no report. The built declaration files are the input: build first.
//
// Both modes fail when a report has an `ae-forgotten-export` line: a public signature names a type
// its entry point does not export, so a user receives or must pass a value whose type they cannot
// name. Export it type-only from that entry point (`export type { X }`, no runtime name), or stop
// naming it; ALLOWED_FORGOTTEN_EXPORTS is for the rare name that cannot be exported, with a reason.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Extractor, ExtractorConfig } from '@microsoft/api-extractor';

const root = resolve(import.meta.dirname, '..');
const update = process.argv.includes('--update');
const only = process.argv.slice(2).filter((argument) => !argument.startsWith('--'));
const temporary = mkdtempSync(join(tmpdir(), 'episodic-api-'));

/** The public entry points of one package: [report name, declaration file]. */
function entryPoints(packageDir, manifest) {
  const entries = [];
  for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
    if (subpath.includes('*') || subpath === './package.json' || subpath.startsWith('./internal'))
      continue;
    const types = typeof target === 'object' ? target.types : undefined;
    if (typeof types !== 'string') continue;
    const name = subpath === '.' ? 'index' : subpath.slice(2).replaceAll('/', '-');
    entries.push([name, join(packageDir, types)]);
  }
  return entries;
}

// Messages that belong in the report (where review sees them) rather than on the console;
// TSDoc style is not what this check is for.
const messages = {
  compilerMessageReporting: { default: { logLevel: 'error' } },
  extractorMessageReporting: {
    default: { logLevel: 'none', addToApiReportFile: true },
    'ae-missing-release-tag': { logLevel: 'none', addToApiReportFile: false },
    // Its lines name the hashed chunk file and line of each declaration: they would change with
    // every unrelated edit and bury the real API changes in review.
    'ae-undocumented': { logLevel: 'none', addToApiReportFile: false },
  },
  tsdocMessageReporting: { default: { logLevel: 'none', addToApiReportFile: false } },
};

/**
 * Forgotten exports a report may keep: `<package name> <report name> <symbol>` → why it cannot be
 * exported. Keep it short; every entry is a type users meet but cannot import.
 */
const ALLOWED_FORGOTTEN_EXPORTS = new Map([]);

/** The `ae-forgotten-export` symbols of one report text that the allow-list does not name. */
function forgottenExports(reportText, packageName, reportName) {
  const symbols = new Set();
  for (const match of reportText.matchAll(/\(ae-forgotten-export\) The symbol "([^"]+)"/g)) {
    if (!ALLOWED_FORGOTTEN_EXPORTS.has(`${packageName} ${reportName} ${match[1]}`)) {
      symbols.add(match[1]);
    }
  }
  return [...symbols];
}

let failures = 0;
let checked = 0;
for (const folder of readdirSync(join(root, 'packages')).sort()) {
  const packageDir = join(root, 'packages', folder);
  const manifestPath = join(packageDir, 'package.json');
  if (!existsSync(manifestPath)) continue;
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  if (manifest.private === true) continue;
  if (only.length > 0 && !only.includes(manifest.name)) continue;
  for (const [name, declarations] of entryPoints(packageDir, manifest)) {
    if (!existsSync(declarations)) {
      console.error(
        `api-report: ${declarations} is missing; build ${manifest.name} first (pnpm build).`,
      );
      failures += 1;
      continue;
    }
    mkdirSync(join(packageDir, 'api'), { recursive: true });
    const config = ExtractorConfig.prepare({
      configObjectFullPath: undefined,
      packageJsonFullPath: manifestPath,
      configObject: {
        projectFolder: packageDir,
        mainEntryPointFilePath: declarations,
        compiler: {
          overrideTsconfig: {
            compilerOptions: {
              target: 'ES2022',
              lib: ['ES2022', 'DOM'],
              module: 'NodeNext',
              moduleResolution: 'NodeNext',
              types: ['node'],
              strict: true,
              skipLibCheck: true,
            },
          },
        },
        apiReport: {
          enabled: true,
          reportFileName: `${name}.api.md`,
          reportFolder: join(packageDir, 'api'),
          reportTempFolder: join(temporary, folder),
        },
        docModel: { enabled: false },
        dtsRollup: { enabled: false },
        tsdocMetadata: { enabled: false },
        messages,
      },
    });
    const result = Extractor.invoke(config, {
      localBuild: update,
      showVerboseMessages: false,
      showDiagnostics: false,
      messageCallback: (message) => {
        if (message.logLevel === 'error') failures += 1;
        // The preamble ("Analysis will use the bundled TypeScript version …") is noise here.
        if (message.logLevel === 'info' || message.logLevel === 'verbose') message.handled = true;
      },
    });
    checked += 1;
    const reportPath = join(temporary, folder, `${name}.api.md`);
    const forgotten = existsSync(reportPath)
      ? forgottenExports(readFileSync(reportPath, 'utf8'), manifest.name, name)
      : [];
    if (forgotten.length > 0) {
      console.error(
        `api-report: packages/${folder}/api/${name}.api.md names ${forgotten.map((symbol) => `"${symbol}"`).join(', ')} ` +
          `without exporting ${forgotten.length === 1 ? 'it' : 'them'} (ae-forgotten-export). Export each type-only from that ` +
          'entry point (export type { X }) or stop naming it in the public signature; if it truly cannot be exported, ' +
          'add it to ALLOWED_FORGOTTEN_EXPORTS in scripts/api-report.mjs with the reason.',
      );
      failures += 1;
    }
    if (!update && result.apiReportChanged) {
      console.error(
        `api-report: the public API of ${manifest.name} (${name}) differs from packages/${folder}/api/${name}.api.md. ` +
          'If the change is intended, run pnpm api:update, commit the report and add a changeset.',
      );
      failures += 1;
    } else if (!result.succeeded && result.errorCount > 0) {
      failures += 1;
    }
  }
}
if (failures > 0) process.exit(1);
rmSync(temporary, { recursive: true, force: true });
console.log(`api-report: ${checked} entry points ${update ? 'written' : 'match their reports'}`);
