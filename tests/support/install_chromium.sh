#!/usr/bin/env bash
# Debian's Chromium for the report's browser test (tests/report/test_report.py), installed by
# `make test` when it is missing and this machine lets us install packages (root, or sudo
# without a password). Otherwise say so: the test then fails with the same advice, never skips.
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then
    exit 0
fi
if [ "$(id -u)" = 0 ]; then
    SUDO=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO=(sudo -n)
else
    echo "chromium is missing and cannot be installed here (not root, no password-less sudo):" \
        "run 'apt-get install -y chromium' as root; the report's browser test will fail until then" >&2
    exit 0
fi
echo "installing Debian's chromium for the report's browser test" >&2
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get install -y -q chromium >/dev/null \
    || { "${SUDO[@]}" apt-get update -q >/dev/null && "${SUDO[@]}" apt-get install -y -q chromium >/dev/null; }
chromium --version >&2
