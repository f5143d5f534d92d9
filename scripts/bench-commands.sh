#!/usr/bin/env bash
# Issue 18's plain-language benchmark: the Commands engine against a 500-accessory home, in process
# (Benchmarks/CommandsBench: the name index's build, each sentence's latency, sentences per second, the outcomes) and,
# when the built `hearth` has it, through `hearth say --home FILE --dry-run --batch` (wall time and sentences per
# second of the whole process: start, home file, index, every sentence, one JSON line each).
#
# Usage: scripts/bench-commands.sh [OUTDIR]
# Environment (defaults):
#   BUILD=1        build both binaries in release first (0: use what is built)
#   PASSES=5       passes of the in-process bench (the last, warm one is reported)
#   SENTENCES=     sentences (default: the whole generated set, about 2,100)
#   RUNS=3         runs of `hearth say --batch` (the median is reported)
#   BENCH=Benchmarks/.build/release/hearth-commands-bench  HEARTH=.build/release/hearth
#   HA_VENV=       a venv with hassil and home-assistant-intents (Home Assistant 2024.3.3's): its recogniser on the
#                  same home and HA_SENTENCES=200 of the sentences, for the side-by-side row
# No network at all: everything runs in a network namespace of its own with only loopback when `unshare -n` works,
# every run is bounded by `timeout`, and only the processes started here are waited for. Writes OUTDIR/home.json,
# sentences.txt, outcomes.tsv, in-process.txt, batch.jsonl, conditions.txt and results.md / results.json.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PASSES="${PASSES:-5}"; SENTENCES="${SENTENCES:-}"; RUNS="${RUNS:-3}"
BENCH="${BENCH:-$ROOT/Benchmarks/.build/release/hearth-commands-bench}"
HEARTH="${HEARTH:-$ROOT/.build/release/hearth}"

if [ "${BUILD:-1}" = 1 ]; then
    (cd "$ROOT/Benchmarks" && swift build -c release --product hearth-commands-bench)
    (cd "$ROOT" && swift build -c release --product hearth)
fi
[ -x "$BENCH" ] || { echo "no hearth-commands-bench at $BENCH (BUILD=1 builds it)" >&2; exit 2; }

OUT="${1:-$ROOT/.build/bench-commands/$(date +%Y%m%d-%H%M%S)}"
mkdir -p "$OUT"; OUT="$(cd "$OUT" && pwd)"
NONET=()
if unshare -n true 2>/dev/null; then NONET=(unshare -n); fi

{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "commit: $(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet HEAD -- Sources Benchmarks || echo ' (modified)')"
    echo "host: $(uname -sr), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
    echo "loadavg at start: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "bench: $BENCH; hearth: $HEARTH; network: ${NONET[*]:-none (unshare -n unavailable; the runs use no sockets)}"
    echo "settings: PASSES=$PASSES SENTENCES=${SENTENCES:-all} RUNS=$RUNS"
} | tee "$OUT/conditions.txt"

# 1. In process: writes the home file and the sentences too.
args=(--passes "$PASSES" --write-home "$OUT/home.json" --write-sentences "$OUT/sentences.txt"
    --write-outcomes "$OUT/outcomes.tsv")
if [ -n "$SENTENCES" ]; then args+=(--sentences "$SENTENCES"); fi
timeout 600 "${NONET[@]}" "$BENCH" "${args[@]}" | tee "$OUT/in-process.txt"
grep '^{"bench":"commands"' "$OUT/in-process.txt" | tail -1 >"$OUT/in-process.json"
LINES=$(wc -l <"$OUT/sentences.txt")

# 2. hearth say --batch, if this hearth has it.
BATCH_JSON='null'
if [ -x "$HEARTH" ] && timeout 30 "$HEARTH" say --help 2>&1 | grep -q -- '--batch'; then
    # One sentence: the fixed cost (start, home file, catalog, name index).
    head -n 1 "$OUT/sentences.txt" >"$OUT/one.txt"
    one=()
    for _ in $(seq 1 "$RUNS"); do
        start=$(date +%s%N)
        timeout 60 "${NONET[@]}" "$HEARTH" say --home "$OUT/home.json" --dry-run --batch <"$OUT/one.txt" >/dev/null
        one+=($(( ($(date +%s%N) - start) / 1000 )))
    done
    walls=()
    rc=0
    for run in $(seq 1 "$RUNS"); do
        start=$(date +%s%N)
        timeout 300 "${NONET[@]}" /usr/bin/time -f '%M' -o "$OUT/batch-rss-$run.txt" \
            "$HEARTH" say --home "$OUT/home.json" --dry-run --batch <"$OUT/sentences.txt" >"$OUT/batch.jsonl" || rc=$?
        walls+=($(( ($(date +%s%N) - start) / 1000 )))
    done
    median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
    WALL_US=$(median "${walls[@]}"); ONE_US=$(median "${one[@]}")
    RSS_KIB=$(tail -n 1 "$OUT/batch-rss-$RUNS.txt")
    # Every input line answered, in order: one JSON object per line whose text is the sentence (or an error object).
    CHECK=$(python3 - "$OUT/sentences.txt" "$OUT/batch.jsonl" <<'EOF'
import json, sys, collections
sentences = open(sys.argv[1], encoding="utf-8").read().split("\n")[:-1]
lines = open(sys.argv[2], encoding="utf-8").read().split("\n")[:-1]
outcomes, problems = collections.Counter(), []
for number, (sentence, line) in enumerate(zip(sentences, lines), 1):
    try:
        obj = json.loads(line)
    except ValueError:
        problems.append(f"line {number} is not JSON"); continue
    if "outcome" in obj:
        outcomes[obj["outcome"]] += 1
        if obj.get("text") != sentence: problems.append(f"line {number} answers {obj.get('text')!r}, not {sentence!r}")
    else:
        outcomes["error"] += 1
if len(lines) != len(sentences): problems.append(f"{len(lines)} lines out for {len(sentences)} in")
print(json.dumps({"lines_in": len(sentences), "lines_out": len(lines), "outcomes": outcomes,
                  "problems": len(problems), "first_problems": problems[:5]}))
EOF
)
    BATCH_JSON=$(python3 -c '
import json, sys
wall, one, lines, rss, rc, check = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], int(sys.argv[5]), json.loads(sys.argv[6])
print(json.dumps({"wall_ms": wall / 1000, "one_sentence_ms": one / 1000, "sentences": lines,
    "sentences_per_second": round(lines / (wall / 1e6)),
    "per_sentence_net_us": round((wall - one) / max(lines - 1, 1), 2),
    "max_rss_kib": int(rss) if rss.isdigit() else None, "exit": rc, "check": check}))
' "$WALL_US" "$ONE_US" "$LINES" "$RSS_KIB" "$rc" "$CHECK")
    echo "hearth say --batch: $BATCH_JSON" | tee "$OUT/batch.txt"
else
    echo "hearth say --batch: not in $HEARTH (skipped)" | tee "$OUT/batch.txt"
fi
# 3. Home Assistant's recogniser (hassil + home-assistant-intents, as HA 2024.3.3 pins them) on the same home and
#    sentences, when HA_VENV points at a venv that has them (../shared/peers/ha/setup_ha_venv.sh makes one).
HASSIL_JSON='null'
if [ -n "${HA_VENV:-}" ] && [ -x "$HA_VENV/bin/python" ]; then
    timeout 900 "${NONET[@]}" "$HA_VENV/bin/python" "$ROOT/Benchmarks/peers/commands_hassil.py" "$OUT/home.json" \
        "$OUT/sentences.txt" --sentences "${HA_SENTENCES:-200}" | tee "$OUT/hassil.txt"
    HASSIL_JSON=$(grep '^{"bench": *"commands-hassil"' "$OUT/hassil.txt" | tail -1)
fi
echo "loadavg at end: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/conditions.txt"

# 4. The results.
python3 - "$OUT" "$BATCH_JSON" "$HASSIL_JSON" <<'EOF' | tee "$OUT/results.md"
import json, sys
out, batch, hassil = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
bench = json.loads(open(f"{out}/in-process.json").read())
i, m, j = bench["interpret"], bench["interpret_median_of_passes"], bench["interpret_json"]
rows = [
    ("home", f"{bench['accessories']} accessories, {bench['services']} services, {bench['rooms']} rooms"),
    ("sentences", f"{bench['sentences']} ({bench['distinct']} distinct), {bench['passes']} passes"),
    ("name index build (once)", f"{bench['index_build_ms']} ms (median rebuild {bench['index_rebuild_median_ms']} ms), "
        f"{bench['index_heap_kib']} KiB heap"),
    ("interpret, warm pass", f"p50 {i['p50_us']} µs, p99 {i['p99_us']} µs, max {i['max_us']} µs"),
    ("interpret, each sentence's median", f"p50 {m['p50_us']} µs, p99 {m['p99_us']} µs, max {m['max_us']} µs"),
    ("interpret + JSON line", f"p50 {j['p50_us']} µs, p99 {j['p99_us']} µs"),
    ("sentences per second, in process", f"{bench['sentences_per_second']}"),
    ("target p99 < 200 µs (warm pass)", "met" if i["p99_us"] < 200 else "NOT met"),
    ("outcomes", ", ".join(f"{k} {v}" for k, v in bench["outcomes"].items())),
]
if batch:
    c = batch["check"]
    rows += [
        ("hearth say --batch, wall", f"{batch['wall_ms']:.1f} ms for {batch['sentences']} sentences "
            f"(one sentence: {batch['one_sentence_ms']:.1f} ms)"),
        ("hearth say --batch, sentences per second", f"{batch['sentences_per_second']} "
            f"(net of start-up {batch['per_sentence_net_us']} µs per sentence), max RSS {batch['max_rss_kib']} KiB"),
        ("hearth say --batch, output", f"{c['lines_out']} lines for {c['lines_in']}, {c['problems']} problems; "
            + ", ".join(f"{k} {v}" for k, v in c["outcomes"].items())),
    ]
else:
    rows.append(("hearth say --batch", "not in this build"))
if hassil:
    rows += [
        ("Home Assistant's hassil, same home and sentences", f"{hassil['sentences']} sentences: p50 {hassil['p50_us']} µs, "
            f"p99 {hassil['p99_us']} µs, {hassil['sentences_per_second']} sentences/s, {hassil['recognised']} recognised"),
        ("ratio p50 / p99 (hassil ÷ Hearth warm pass)",
            f"{hassil['p50_us'] / i['p50_us']:.0f}× / {hassil['p99_us'] / i['p99_us']:.0f}×"),
    ]
print("| measure | value |\n|---|---|")
for name, value in rows: print(f"| {name} | {value} |")
json.dump({"in_process": bench, "batch": batch, "hassil": hassil}, open(f"{out}/results.json", "w"))
EOF
echo "results in $OUT"
