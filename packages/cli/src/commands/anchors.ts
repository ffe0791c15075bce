import { resolve } from 'node:path';
import { createAnchors, generateAnchorKey } from '@episodic/home';

import type { CommandHandler, CommandResult } from '../command-spec.js';
import { commandName, ledgerCommand } from '../ledger-command.js';
import { writeNotes } from '../notes.js';
import { flag, optionalScopeSelector, requiredString } from '../option-values.js';
import { locate, withStores } from '../stores.js';
import { UsageError } from '../usage-error.js';

/**
 * `anchors keygen --out FILE`: an Ed25519 key for signing anchors (docs/design/verify.md section
 * 5), PKCS#8 PEM with mode 0600, never over an existing file; prints its public key.
 */
export const keygen: CommandHandler = async (context): Promise<CommandResult> => {
  const out = resolve(requiredString(context.options, 'out', commandName(context)));
  const key = generateAnchorKey({ out });
  return {
    receipt: { key_file: key.keyFile, public_key: key.publicKey, key_id: key.keyId },
    render: (write) => {
      write(`wrote the anchor key ${key.keyFile} (mode 0600; keep it outside the home)\n`);
      write(`public key  ${key.publicKey}\n`);
      write(`key id      ${key.keyId}\n`);
    },
  };
};

/**
 * `anchors create --key FILE --out FILE`: signs the current heads of the home's chained streams
 * (runs and the erasure log; the ledger sessions of the scope given) into an anchor file.
 */
export const create = ledgerCommand(async (context): Promise<CommandResult> => {
  const { options } = context;
  const command = commandName(context);
  const keyFile = resolve(requiredString(options, 'key', command));
  const out = resolve(requiredString(options, 'out', command));
  const askedRuns = flag(options, 'runs');
  const askedLedger = flag(options, 'ledger');
  const selector = optionalScopeSelector(options, command);
  // As verify: neither part named means the runs, and the ledger when a scope option is given.
  const runs = askedRuns || !askedLedger;
  const ledger = askedLedger || (!askedRuns && selector !== undefined);
  if (ledger && selector === undefined) {
    throw new UsageError(
      `"${command} --ledger" needs --scope SCOPE (--global is the scope named global; --all-scopes anchors every scope). Nothing falls back across scopes; nothing was written.`,
      'SCOPE_REQUIRED',
    );
  }
  if (!ledger && selector !== undefined) {
    throw new UsageError(
      '--scope, --global and --all-scopes select ledger sessions: drop --runs (or add --ledger), or leave them out. Nothing was written.',
    );
  }
  const { home } = locate(context);
  const made = await withStores(
    context,
    (stores) =>
      createAnchors(stores, {
        keyFile,
        out,
        home,
        runs,
        ...(ledger && selector !== undefined ? { ledger: selector } : {}),
      }),
    { readOnly: true },
  );
  const { document } = made;
  const heads = { run: 0, ledger: 0, session: 0 };
  for (const head of document.heads) if (head.kind !== 'erasures') heads[head.kind]++;
  writeNotes(context, made.notes);
  return {
    receipt: {
      out,
      created_at: document.created_at,
      key_id: document.key_id,
      heads,
      erasure_logs: document.erasure_logs.length,
      parts: made.parts,
      notes: [...made.notes],
    },
    render: (write) => {
      write(
        `anchored ${heads.run} run${heads.run === 1 ? '' : 's'}, ${heads.ledger} ledger session${heads.ledger === 1 ? '' : 's'} and ${document.erasure_logs.length} erasure log${document.erasure_logs.length === 1 ? '' : 's'} in ${out} (key ${document.key_id}, ${document.created_at})\n`,
      );
    },
  };
});
