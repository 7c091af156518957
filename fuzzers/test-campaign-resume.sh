#!/usr/bin/env bash
# Kill-and-resume test of the overnight campaign (fuzzers/campaign.py, ci/fuzz-overnight.sh):
#
#  1. start a short campaign on a target that finds something (the fuzz_dense_mutants build
#     with two planted-bug backends), filing into a scratch corpora directory;
#  2. once it has crash artifacts and a grown corpus, SIGKILL the campaign process (its
#     libFuzzer keeps running, orphaned, as after a real kill);
#  3. snapshot the artifacts and the corpus, then run the same command again to the end;
#  4. check: every artifact seen before the kill was processed and its finding filed (or
#     counted as a duplicate of a filed one), the state shows the resume, the orphaned fuzzer
#     was stopped, and the corpus from before the kill adds no coverage to the final corpus
#     (libFuzzer -merge=1 reports 0 new features: nothing the killed run found was lost).
#
# Usage: fuzzers/test-campaign-resume.sh [MINUTES]   (total campaign time, default 3)
#   env: ACCUCHECK_FUZZ_BUILD (default build-fuzz). Exit 0 when every check holds.
set -euo pipefail
cd "$(dirname "$0")/.."
minutes="${1:-3}"
build="${ACCUCHECK_FUZZ_BUILD:-build-fuzz}"
target=fuzz_dense_mutants
export ACCUCHECK_FUZZ_BACKENDS="${ACCUCHECK_FUZZ_BACKENDS:-kahan_lost_compensation_f32,last_step_dropped_f32,nan_skipped_f32}"
scratch="$build/test-campaign-resume"
rm -rf "$scratch"
mkdir -p "$scratch"
state="$scratch/state"
corpora="$scratch/corpora"
cmake --build "$build" -j2 --target "$target" >/dev/null
hours=$(echo "scale=4; $minutes / 60" | bc)
campaign=(python3 fuzzers/campaign.py --hours "$hours" --jobs 2 --slice 45 --minimize-seconds 20
          --build "$build" --state "$state" --corpora "$corpora" --targets "$target")

echo "== 1. start: ${campaign[*]}"
"${campaign[@]}" >"$scratch/run1.log" 2>&1 &
pid=$!
for _ in $(seq 1 240); do
  sleep 1
  artifacts=$(ls "$state/$target/artifacts" 2>/dev/null | grep -c -E '^(crash|leak|timeout|oom)-' || true)
  corpus=$(ls "$state/$target/corpus" 2>/dev/null | wc -l)
  [ "$artifacts" -ge 2 ] && [ "$corpus" -ge 20 ] && break
done
echo "   artifacts: $artifacts, corpus files: $corpus"
fuzzer_pids=$(python3 -c "import json; print(' '.join(map(str, json.load(open('$state/state.json'))['targets']['$target']['children'])))")

echo "== 2. SIGKILL the campaign (pid $pid); its fuzzer ($fuzzer_pids) is left running"
kill -KILL "$pid"
wait "$pid" 2>/dev/null || true
sleep 2
mkdir -p "$scratch/before/corpus" "$scratch/before/artifacts"
cp -a "$state/$target/corpus/." "$scratch/before/corpus/"
cp -a "$state/$target/artifacts/." "$scratch/before/artifacts/"
before_artifacts=$(ls "$scratch/before/artifacts" | grep -E '^(crash|leak|timeout|oom)-' | sort)
echo "   before the resume: $(echo "$before_artifacts" | grep -c . || true) artifacts, $(ls "$scratch/before/corpus" | wc -l) corpus files,"\
     "$(ls "$corpora/$target/regressions" 2>/dev/null | grep -c '\.json$' || true) findings filed"

echo "== 3. resume: the same command"
"${campaign[@]}" >"$scratch/run2.log" 2>&1 || true
grep -E 'resuming|stopping pid|FINDING|duplicate|merged|finished' "$scratch/run2.log" | sed 's/^/   /'

echo "== 4. checks"
fail=0
check() { if eval "$2"; then echo "   ok:   $1"; else echo "   FAIL: $1"; fail=1; fi; }
processed=$(python3 -c "import json; print('\n'.join(json.load(open('$state/state.json'))['targets']['$target']['processed']))" | sort)
missing=$(comm -23 <(echo "$before_artifacts") <(echo "$processed") | grep -c . || true)
check "every artifact from before the kill was processed ($missing missing)" '[ "$missing" -eq 0 ]'
filed=$(ls "$corpora/$target/regressions" | grep -c '\.json$' || true)
check "findings filed in $corpora/$target/regressions ($filed)" '[ "$filed" -ge 1 ]'
resumes=$(python3 -c "import json; print(json.load(open('$state/state.json'))['resumes'])")
check "state.json records the resume (resumes = $resumes)" '[ "$resumes" -ge 1 ]'
alive=0
for p in $fuzzer_pids; do
  if [ -r "/proc/$p/cmdline" ] && tr '\0' ' ' <"/proc/$p/cmdline" | grep -q "$target"; then alive=1; fi
done
check "the orphaned fuzzer from the killed run is gone" '[ "$alive" -eq 0 ]'
# The final corpus as the base, the pre-kill corpus merged into it: what does it add?
mkdir -p "$scratch/merge-check"
cp -a "$state/$target/corpus/." "$scratch/merge-check/"
"$build/fuzzers/$target" -merge=1 -max_len=4096 "$scratch/merge-check" "$scratch/before/corpus" \
  >"$scratch/merge-check.log" 2>&1 || true
new_features=$(sed -n 's/.*MERGE-OUTER: [0-9]* new files with \([0-9]*\) new features added.*/\1/p' "$scratch/merge-check.log" | tail -1)
check "the corpus from before the kill adds no coverage to the final corpus (new features: ${new_features:-?})" '[ "${new_features:-1}" -eq 0 ]'
check "summary.json and summary.md written" '[ -s "$state/summary.json" ] && [ -s "$state/summary.md" ]'
echo "   summary: $state/summary.md"
exit "$fail"
