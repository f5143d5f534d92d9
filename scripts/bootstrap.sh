#!/usr/bin/env bash
# Installs the Debian packages Hearth needs beyond the Swift toolchain, only when something is missing:
# python3-venv (the Python peers), iproute2 (network namespaces for the mDNS and interop tests), chromium and
# chromium-driver (the web page's tests in a real browser), haproxy (the relay's failover test: two hearth-relay
# instances behind it).
set -euo pipefail
missing=()
python3 -c "import ensurepip, venv" 2>/dev/null || missing+=(python3-venv)
command -v ip >/dev/null || missing+=(iproute2)
command -v chromium >/dev/null || missing+=(chromium)
command -v chromedriver >/dev/null || missing+=(chromium-driver)
[[ -x /usr/sbin/haproxy ]] || command -v haproxy >/dev/null || missing+=(haproxy)
if (( ${#missing[@]} )); then
    echo "installing: ${missing[*]}" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
