#!/usr/bin/env bash
# Installs the pinned Python peers (HAP-python, aiohomekit, zeroconf) and Selenium into .venv inside the repository.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
VENV="$ROOT/.venv"
REQUIREMENTS="$ROOT/scripts/peers-requirements.txt"
STAMP="$VENV/.requirements.sha256"
WANT="$(sha256sum "$REQUIREMENTS" | cut -d' ' -f1)"
if [[ -x "$VENV/bin/python" && -f "$STAMP" && "$(cat "$STAMP")" == "$WANT" ]]; then
    exit 0
fi
command -v python3 >/dev/null || { apt-get update -qq && apt-get install -y -qq python3 python3-venv; }
python3 -m venv "$VENV" 2>/dev/null || { apt-get update -qq && apt-get install -y -qq python3-venv && python3 -m venv "$VENV"; }
"$VENV/bin/pip" install -q --disable-pip-version-check -r "$REQUIREMENTS"
echo "$WANT" > "$STAMP"
"$VENV/bin/python" -c "import importlib.metadata as m; print('peers:', ', '.join(f'{p} {m.version(p)}' for p in ('HAP-python', 'aiohomekit', 'zeroconf', 'selenium')))"
