// The API report of every public entry point of every published package, with API Extractor.
//
//   node scripts/api-report.mjs           check: fails when a package's public API differs from its
//                                         committed report (run by `pnpm lint`)
//   node scripts/api-report.mjs --update  rewrites the reports (`pnpm api:update`); commit them
//
// Reports live at packages/<name>/api/<entry>.api.md, one per subpath export that carries types
// ("." is index.api.md, "./testing/child" is testing-child.api.md). `./internal` entries are
// outside semver and have no report. The built declaration files are the input: build first.
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
