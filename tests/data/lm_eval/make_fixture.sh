#!/bin/sh
# How the fixture in this folder was made: a real lm-evaluation-harness --log_samples file
# for a task written by `gen export lm-eval`, so tests/test_export.py checks `gen eval`
# against the harness's own output without lm-eval installed (CI installs .[test] only).
#
#   gold.jsonl     test split of: gen jamp --n 100 --seed 7 --fragment interval
#                  --split format_hard (a copy of its test.jsonl: 20 problems, seen/unseen)
#   samples.jsonl  lm-eval 0.4.13, --model dummy (random log-likelihoods), 1-shot: the
#                  one subtask (fragment interval) of that folder exported with
#                  gen export lm-eval --name nligen_fixture
#
# lm-eval installs offline without torch, into a venv of its own (not the project's):
#   python3 -m venv /tmp/lmeval-venv
#   /tmp/lmeval-venv/bin/pip install --no-deps lm-eval==0.4.13
#   /tmp/lmeval-venv/bin/pip install datasets evaluate jsonlines sqlitedict pytablewriter \
#       sacrebleu rouge_score scikit-learn numexpr dill word2number more_itertools \
#       zstandard tqdm-multiprocess jinja2
# Then, with `gen` on PATH (the project's venv): sh tests/data/lm_eval/make_fixture.sh
# The dummy model draws its log-likelihoods at random: every run writes other samples.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
LMEVAL_VENV=${LMEVAL_VENV:-/tmp/lmeval-venv}
VERSION=$("$LMEVAL_VENV/bin/python" -c "import importlib.metadata as m; print(m.version('lm_eval'))")
[ "$VERSION" = "0.4.13" ] || { echo "expected lm-eval 0.4.13, found $VERSION" >&2; exit 1; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
gen jamp --n 100 --seed 7 --fragment interval --split format_hard -q -o "$WORK/gold/"
gen export lm-eval "$WORK/gold" -o "$WORK/task/" --name nligen_fixture -q
HF_DATASETS_OFFLINE=1 HF_HUB_OFFLINE=1 "$LMEVAL_VENV/bin/lm_eval" --model dummy \
    --include_path "$WORK/task" --tasks nligen_fixture --num_fewshot 1 \
    --log_samples --output_path "$WORK/out"
cp "$WORK/gold/test.jsonl" "$HERE/gold.jsonl"
cp "$WORK"/out/*/samples_nligen_fixture_interval_*.jsonl "$HERE/samples.jsonl"
gen eval --gold "$HERE/gold.jsonl" --pred "$HERE/samples.jsonl" | head -8
