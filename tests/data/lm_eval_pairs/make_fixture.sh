#!/bin/sh
# How the fixture in this folder was made: a real lm-evaluation-harness --log_samples run of
# minimal pairs exported by `gen export lm-eval`, so tests/test_pairs.py checks
# `gen eval --scores` against the harness's own output and its own accuracy without
# lm-eval installed (CI installs .[test] only).
#
#   gold.jsonl     gen pairs --language de --n 56 --seed 3 -o DIR/ (its all.jsonl)
#   samples.jsonl  lm-eval 0.4.13, --model dummy (random log-likelihoods): every
#                  samples_*.jsonl of the 14 paradigm tasks, concatenated
#   results.json   the harness's own results (acc per task and for the group)
#
# lm-eval installs offline without torch into a venv of its own: see
# tests/data/lm_eval/make_fixture.sh. The dummy model draws at random: every run writes
# other samples.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
LMEVAL_VENV=${LMEVAL_VENV:-/tmp/lmeval-venv}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
gen pairs --language de --n 56 --seed 3 -q -o "$WORK/gold/"
gen export lm-eval "$WORK/gold" -o "$WORK/task/" --name nligen_pairs_fixture -q
(cd "$WORK" && HF_DATASETS_OFFLINE=1 HF_HUB_OFFLINE=1 "$LMEVAL_VENV/bin/lm_eval" \
    --model dummy --include_path "$WORK/task" --tasks nligen_pairs_fixture \
    --log_samples --output_path "$WORK/out")
cp "$WORK/gold/all.jsonl" "$HERE/gold.jsonl"
cat "$WORK"/out/*/samples_*.jsonl > "$HERE/samples.jsonl"
"$LMEVAL_VENV/bin/python" -c "import glob, json, sys; r = json.load(open(glob.glob(sys.argv[1])[0])); json.dump(r['results'], open(sys.argv[2], 'w'), indent=1, sort_keys=True)" \
    "$WORK/out/*/results_*.json" "$HERE/results.json"
gen eval --gold "$HERE/gold.jsonl" --scores "$HERE/samples.jsonl" | head -6
