#!/usr/bin/env bash
# Regenerates openclaw-mem-<version>-opened-with-rows.sqlite (committed: 1.3.2 and 1.9.32, the
# first and last 1.x with a search index): a ledger Episodic created and appended to, so its
# episodic_events already has rows when openclaw-mem (seed 002's own implementation) first opens
# it and adds its search index. Up to Episodic schema 12 that open failed ("database disk image is
# malformed", see docs/design/openclaw-mem.md); schema 13's stand-in for the index lets it through.
# openclaw-mem then searches the rows Episodic wrote, appends a row of its own, Episodic appends
# one more (through openclaw-mem's triggers) and openclaw-mem's next open fills that row's
# search_text. The rows carry distinctive secrets the redaction tests look for.
# Its code is not part of this repository: check it out anywhere and point OPENCLAW_MEM_DIR at it,
#   git clone https://github.com/phenomenoner/openclaw-mem && git -C openclaw-mem checkout v1.9.32
#   pnpm build   # the built @episodic/store-sqlite creates the file and appends
#   OPENCLAW_MEM_DIR=$PWD/openclaw-mem bash test-support/seed-data/openclaw-mem/generate-opened-with-rows.sh
# Needs python3 (3.10+) and node.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
: "${OPENCLAW_MEM_DIR:?set OPENCLAW_MEM_DIR to an openclaw-mem 1.3.2 to 1.9.x checkout}"
store="$here/../../../packages/store-sqlite/dist/index.js"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
db="$work/openclaw-mem.sqlite"
version="$(cd "$OPENCLAW_MEM_DIR" && python3 -c 'import openclaw_mem; print(openclaw_mem.__version__)')"
ocm() {
  local output
  if ! output="$(cd "$OPENCLAW_MEM_DIR" && HOME="$work" python3 -m openclaw_mem.cli --db "$db" "$@" 2>&1)"; then
    printf 'openclaw-mem %s failed:\n%s\n' "$*" "$output" >&2
    return 1
  fi
  printf '%s\n' "$output"
}
episodic() {
  node --input-type=module -e '
    const { createSqliteStore } = await import(process.argv[1]);
    const store = createSqliteStore({ filename: process.argv[2] });
    for (const event of process.argv.slice(3)) await store.ledger.append(JSON.parse(event));
    await store.close();
  ' "$store" "$db" "$@"
}

# Episodic creates the file and appends four rows: a session with secrets in the summary, the
# payload and the refs, and a session without any.
episodic \
  '{"event_id":"evt-ep-secret-1","ts_ms":1767225600000,"scope":"openclaw-mem","session_id":"sess-secret","agent_id":"planner","type":"conversation.user","summary":"Launch phrase is ZQXSECRETWIBBLE9431","payload":{"note":"PAYLOADSECRETFROBNITZ77"},"refs":{"ref":"REFSECRETQUUXBLORP"}}' \
  '{"event_id":"evt-ep-secret-2","ts_ms":1767225601000,"scope":"openclaw-mem","session_id":"sess-secret","agent_id":"planner","type":"tool.result","summary":"tool answered","payload":{"output":"TOOLSECRETMARZIPAN55"}}' \
  '{"event_id":"evt-ep-plain-1","ts_ms":1767225700000,"scope":"openclaw-mem","session_id":"sess-plain","agent_id":"planner","type":"conversation.user","summary":"harmless weather chat","payload":{"text":"sunny umbrellas"}}' \
  '{"event_id":"evt-ep-plain-2","ts_ms":1767225701000,"scope":"openclaw-mem","session_id":"sess-plain","agent_id":"planner","type":"ops.decision","summary":"Keep the rollout"}'
# openclaw-mem opens it for the first time (adding its search index over those rows) and searches
# a word only a payload Episodic wrote holds.
hits="$(ocm episodes search umbrellas --scope openclaw-mem --json)"
python3 -c 'import json,sys; r=json.loads(sys.argv[1]); assert r["ok"] and r["result"]["count"] == 1, r' "$hits"
# openclaw-mem appends a row of its own to Episodic's plain session.
ocm episodes append --json --scope openclaw-mem --session-id sess-plain --agent-id lyria \
  --type conversation.assistant --summary "Bring an umbrella anyway" --event-id evt-ocm-1 \
  --ts-ms 1767225702000 >/dev/null
# Episodic appends a row with a secret (openclaw-mem's insert trigger indexes its summary) ...
episodic '{"event_id":"evt-ep-secret-3","ts_ms":1767225602000,"scope":"openclaw-mem","session_id":"sess-secret","agent_id":"planner","type":"conversation.assistant","summary":"noted EPSECRETGRAVLAX","payload":{"detail":"EPPAYLOADSECRETKUMQUAT"}}'
# ... and openclaw-mem's next open fills its search_text (summary + payload text) and reindexes it.
ocm episodes query --scope openclaw-mem --json >/dev/null

python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("PRAGMA wal_checkpoint(TRUNCATE)"); c.execute("VACUUM"); c.close()' "$db"
cp "$db" "$here/openclaw-mem-$version-opened-with-rows.sqlite"
echo "wrote $here/openclaw-mem-$version-opened-with-rows.sqlite"
