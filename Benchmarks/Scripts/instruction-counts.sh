#!/usr/bin/env bash
# Instructions per operation of each workload, counted by callgrind: stable on a noisy machine,
# unlike time. Run from the repository root after building the report in release:
#
#   swift build -c release --package-path Benchmarks --product autokvo-bench-report
#   Benchmarks/Scripts/instruction-counts.sh [workload-id ...]
#
# With no arguments it counts every workload (`autokvo-bench-report --profile x` lists them).
# Only the profiled region is counted (--toggle-collect), so setup is excluded.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

binary=.build/release/autokvo-bench-report
# valgrind 3.19 cannot read the DWARF 5 the Swift toolchain emits: count a copy without it.
stripped=$(mktemp)
trap 'rm -f "$stripped" "$stripped".cg' EXIT
cp "$binary" "$stripped"
chmod +x "$stripped"
strip --strip-debug "$stripped"

if [ $# -eq 0 ]; then
  mapfile -t workloads < <("$binary" --profile list 2>/dev/null | sed -n 's/^  //p')
else
  workloads=("$@")
fi

printf '| workload | instructions per operation |\n| --- | ---: |\n'
for workload in "${workloads[@]}"; do
  case "$workload" in
    dealloc*) iterations=20 ;;
    append1000/*) iterations=20 ;;
    append10000/*) iterations=2 ;;
    append100000/*) iterations=2 ;;
    *) iterations=2000 ;;
  esac
  total=$(valgrind --tool=callgrind --callgrind-out-file="$stripped".cg \
    --toggle-collect='*profiledRegion*' "$stripped" --profile "$workload" \
    --iterations "$iterations" 2>&1 | sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
  printf '| %s | %d |\n' "$workload" $((total / iterations))
done
