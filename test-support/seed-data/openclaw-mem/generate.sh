#!/usr/bin/env bash
# Regenerates the openclaw-mem fixture databases with openclaw-mem 1.3.2 itself (seed 002's own
# implementation). Its code is not part of this repository: check it out anywhere and point
# OPENCLAW_MEM_DIR at it, e.g.
#   git clone https://github.com/phenomenoner/openclaw-mem && git -C openclaw-mem checkout v1.3.2
#   OPENCLAW_MEM_DIR=$PWD/openclaw-mem bash test-support/seed-data/openclaw-mem/generate.sh
# Needs python3 (3.10+); openclaw-mem 1.3.2 has no other dependencies for these commands.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
: "${OPENCLAW_MEM_DIR:?set OPENCLAW_MEM_DIR to an openclaw-mem v1.3.2 checkout}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
db="$work/openclaw-mem.sqlite"
ocm() {
  local output
  if ! output="$(cd "$OPENCLAW_MEM_DIR" && HOME="$work" python3 -m openclaw_mem.cli --db "$db" "$@" 2>&1)"; then
    printf 'openclaw-mem %s failed:\n%s\n' "$*" "$output" >&2
    return 1
  fi
}
append() { ocm episodes append --json "$@"; }

# An ordinary session, and a type written in another case (openclaw-mem folds it).
append --scope openclaw-mem --session-id sess-001 --agent-id lyria --type conversation.user \
  --summary "Asked for status" --payload-json '{"intent":"status"}' --refs-json '{"recordRef":"obs:42"}' \
  --event-id evt-001 --ts-ms 1767225600000
append --scope openclaw-mem --session-id sess-001 --agent-id worker --type Tool.Call \
  --summary "call health_check" --payload-json '{"check":"health"}' --event-id evt-002 --ts-ms 1767225601000
# Event ids openclaw-mem accepts and Episodic would not write: a space, non-ASCII letters.
append --scope openclaw-mem --session-id sess-001 --agent-id lyria --type conversation.assistant \
  --summary "All services are green" --event-id "evt 003" --ts-ms 1767225602000
append --scope openclaw-mem --session-id sess-001 --agent-id lyria --type ops.decision \
  --summary "Keep the rollout" --event-id "évènement-ñ-004" --ts-ms 1767225603000
append --scope openclaw-mem --session-id sess-001 --agent-id lyria --type ops.alert \
  --summary "Disk at 91%" --event-id "事件-005" --ts-ms 1767225604000
# A payload Python's json module writes but JSON does not allow (Infinity), among good rows.
append --scope openclaw-mem --session-id sess-002 --agent-id worker --type tool.result \
  --summary "ratio computed" --payload-json '{"ratio": 1}' --event-id evt-101 --ts-ms 1767225700000
append --scope openclaw-mem --session-id sess-002 --agent-id worker --type tool.result \
  --summary "ratio overflowed" --payload-json '{"ratio": Infinity}' --event-id evt-102 --ts-ms 1767225701000
append --scope openclaw-mem --session-id sess-002 --agent-id worker --type tool.result \
  --summary "ratio recomputed" --payload-json '{"ratio": 2}' --event-id evt-103 --ts-ms 1767225702000
# A payload above Episodic's default 8 KiB cap, stored with a raised cap.
big="$(python3 -c 'import json; print(json.dumps({"notes": "n" * 12000}))')"
append --scope openclaw-mem --session-id sess-002 --agent-id worker --type ops.decision \
  --summary "long notes" --payload-json "$big" --payload-cap-bytes 20000 --event-id evt-104 --ts-ms 1767225703000
# An integer beyond 2^53 (Python keeps it exactly).
append --scope openclaw-mem --session-id sess-002 --agent-id worker --type tool.result \
  --summary "order id" --payload-json '{"order_id": 12345678901234567890}' --event-id evt-105 --ts-ms 1767225704000 --allow-tool-output
# A session id longer than Episodic's 256-character limit, with three events.
long_session="$(python3 -c 'print("run-" + "x" * 296)')"
for n in 1 2 3; do
  append --scope openclaw-mem --session-id "$long_session" --agent-id cron --type ops.decision \
    --summary "nightly step $n" --event-id "evt-long-$n" --ts-ms "176722580${n}000"
done
# openclaw-mem's own redaction (payload and refs become the JSON string "[REDACTED]").
append --scope openclaw-mem --session-id sess-003 --agent-id lyria --type conversation.user \
  --summary "My phone number is private" --payload-json '{"text":"call me"}' --refs-json '{"thread":"t-9"}' \
  --event-id evt-201 --ts-ms 1767225900000 --allow-tool-output
ocm episodes redact --event-id evt-201 --replacement placeholder --json
# Untagged events from the spool go to openclaw-mem's literal scope "global".
spool="$work/spool.jsonl"
cat >"$spool" <<'EOF'
{"event_id":"evt-g1","ts_ms":1767226000000,"session_id":"sess-g","agent_id":"ingest","type":"conversation.user","summary":"Untagged question"}
{"event_id":"evt-g2","ts_ms":1767226001000,"session_id":"sess-g","agent_id":"ingest","type":"conversation.assistant","summary":"Untagged answer"}
{"event_id":"evt-g3","ts_ms":1767226002000,"session_id":"sess-g","agent_id":"ingest","type":"ops.decision","summary":"[SCOPE: team-a] Tagged decision"}
EOF
ocm episodes ingest --json --file "$spool" --state "$work/ingest-state.json"

python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("PRAGMA wal_checkpoint(TRUNCATE)"); c.execute("VACUUM"); c.close()' "$db"
cp "$db" "$here/openclaw-mem-1.3.2.sqlite"
echo "wrote $here/openclaw-mem-1.3.2.sqlite"

# The same file after Episodic schema version 4 migrated it (positions for the rows then), and then
# openclaw-mem appended two more events: rows Episodic has not numbered. Needs the built
# @episodic/store-sqlite (pnpm build).
node --input-type=module -e '
  import { createRequire } from "node:module";
  const require = createRequire(process.argv[1] + "/");
  const { MIGRATIONS } = await import(process.argv[1] + "/dist/index.js");
  const Database = require("better-sqlite3");
  const database = new Database(process.argv[2]);
  for (const migration of MIGRATIONS.filter((step) => step.version <= 4)) {
    database.transaction(() => { migration.up(database); database.pragma(`user_version = ${migration.version}`); }).immediate();
  }
  database.close();
' "$here/../../../packages/store-sqlite" "$db"
append --scope openclaw-mem --session-id sess-001 --agent-id lyria --type conversation.user \
  --summary "One more question" --event-id evt-006 --ts-ms 1767225605000
append --scope openclaw-mem --session-id sess-new --agent-id lyria --type conversation.user \
  --summary "A new session" --event-id evt-301 --ts-ms 1767226100000
ocm episodes query --scope openclaw-mem --json
python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("PRAGMA wal_checkpoint(TRUNCATE)"); c.execute("VACUUM"); c.close()' "$db"
cp "$db" "$here/openclaw-mem-1.3.2-appended-after-episodic-v4.sqlite"
echo "wrote $here/openclaw-mem-1.3.2-appended-after-episodic-v4.sqlite"
