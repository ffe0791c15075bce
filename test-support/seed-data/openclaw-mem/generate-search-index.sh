#!/usr/bin/env bash
# Regenerates openclaw-mem-<version>-search-index.sqlite (committed: 1.3.2 and 1.9.32, the last
# 1.x): a ledger Episodic created, then opened and
# written by openclaw-mem (seed 002's own implementation), which adds its search index to the
# file: a `search_text` column on episodic_events (summary + payload + refs text) and the
# external-content FTS5 table episodic_events_fts kept by triggers. Episodic then appends a row
# (through those triggers) and openclaw-mem opens the file once more, which fills that row's
# search_text. The rows carry distinctive secrets the redaction and GC tests look for. Versions
# with `episodes embed` (1.4.0 and later) also embed every row's search text into
# episodic_event_embeddings, through a stand-in for the embeddings API on 127.0.0.1 (a vector
# derived from the text's SHA-256; no network).
# Its code is not part of this repository: check it out anywhere and point OPENCLAW_MEM_DIR at it,
#   git clone https://github.com/phenomenoner/openclaw-mem && git -C openclaw-mem checkout v1.3.2
#   pnpm build   # the built @episodic/store-sqlite creates the file and appends
#   OPENCLAW_MEM_DIR=$PWD/openclaw-mem bash test-support/seed-data/openclaw-mem/generate-search-index.sh
# Needs python3 (3.10+) and node. Episodic creates the file empty here: up to Episodic schema 12,
# openclaw-mem 1.3.1 to 1.9.x could not open a file whose episodic_events already had rows when
# they first added their index ("database disk image is malformed"; generate-opened-with-rows.sh
# makes such a file since schema 13). openclaw-mem 2.x refuses Episodic's user_version.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
: "${OPENCLAW_MEM_DIR:?set OPENCLAW_MEM_DIR to an openclaw-mem v1.3.2 checkout}"
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
}
append() { ocm episodes append --json --scope openclaw-mem --agent-id lyria "$@"; }
episodic() {
  node --input-type=module -e '
    const { createSqliteStore } = await import(process.argv[1]);
    const store = createSqliteStore({ filename: process.argv[2] });
    const event = process.argv[3];
    if (event === undefined) await store.ledger.query({ scope: "openclaw-mem" });
    else await store.ledger.append(JSON.parse(event));
    await store.close();
  ' "$store" "$db" "$@"
}

# Episodic creates the file (its schema, an empty ledger).
episodic
# openclaw-mem opens it (adding its search index) and appends: a session with secrets in the
# summary, the payload and the refs, and a session without any.
append --session-id sess-secret --type conversation.user --summary "Deploy key is ZQXSECRETWIBBLE9431" \
  --payload-json '{"token":"PAYLOADSECRETFROBNITZ77"}' --refs-json '{"ref":"REFSECRETQUUXBLORP"}' \
  --event-id evt-secret-1 --ts-ms 1767225600000 --allow-tool-output
append --session-id sess-secret --type tool.result --summary "tool answered" \
  --payload-json '{"output":"TOOLSECRETMARZIPAN55"}' --event-id evt-secret-2 --ts-ms 1767225601000 --allow-tool-output
append --session-id sess-plain --type conversation.user --summary "harmless weather chat" \
  --payload-json '{"text":"sunny umbrellas"}' --event-id evt-plain-1 --ts-ms 1767225700000
append --session-id sess-plain --type ops.decision --summary "Keep the rollout" \
  --event-id evt-plain-2 --ts-ms 1767225701000
# Episodic appends a row with a secret (openclaw-mem's insert trigger indexes its summary) ...
episodic '{"event_id":"evt-episodic-1","ts_ms":1767225602000,"scope":"openclaw-mem","session_id":"sess-episodic","agent_id":"planner","type":"conversation.assistant","summary":"noted EPSECRETGRAVLAX","payload":{"detail":"EPPAYLOADSECRETKUMQUAT"}}'
# ... and openclaw-mem's next open fills its search_text (summary + payload text) and reindexes it.
ocm episodes query --scope openclaw-mem --json

if (cd "$OPENCLAW_MEM_DIR" && python3 -m openclaw_mem.cli episodes embed --help >/dev/null 2>&1); then
  python3 -c '
import hashlib, http.server, json, struct, sys
class Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        texts = json.loads(self.rfile.read(int(self.headers["Content-Length"])))["input"]
        vectors = [[b / 255 for b in hashlib.sha256(t.encode()).digest()[:8]] for t in texts]
        body = json.dumps({"data": [{"embedding": v} for v in vectors]}).encode()
        self.send_response(200); self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body)
    def log_message(self, *args): pass
server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
open(sys.argv[1], "w").write(str(server.server_port))
server.serve_forever()
' "$work/port" &
  server=$!
  for _ in $(seq 50); do [ -s "$work/port" ] && break; sleep 0.1; done
  OPENAI_API_KEY=stand-in OPENCLAW_MEM_OPENAI_BASE_URL="http://127.0.0.1:$(cat "$work/port")/v1" \
    ocm episodes embed --scope openclaw-mem --json
  kill "$server"
fi

python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("PRAGMA wal_checkpoint(TRUNCATE)"); c.execute("VACUUM"); c.close()' "$db"
cp "$db" "$here/openclaw-mem-$version-search-index.sqlite"
echo "wrote $here/openclaw-mem-$version-search-index.sqlite"
