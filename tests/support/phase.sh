#!/usr/bin/env bash
# phase.sh FILE NAME COMMAND...: run COMMAND as the phase NAME of `make test`, append
# "NAME<TAB>seconds<TAB>exit status" to FILE, say it in one line, and exit with COMMAND's status.
# tests/support/suite_report.py prints the phases, the counts and the slowest tests at the end.
set -u
file=$1
name=$2
shift 2
start=$(date +%s.%N)
"$@"
rc=$?
secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
printf '%s\t%s\t%s\n' "$name" "$secs" "$rc" >>"$file"
echo "make test: phase $name took $secs s (exit $rc)"
exit "$rc"
