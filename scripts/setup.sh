#!/usr/bin/env bash
# Create ./.venv (once) and install mancala-envs into it, editable, with the given extras.
#   bash scripts/setup.sh            # all extras: train, test, bench, render, docs, examples, ray
#   bash scripts/setup.sh train      # what the main job needs
#   bash scripts/setup.sh render     # pictures, mancala play --window, replay --gif
# constraints.txt pins torch to 2.13.0 (any other version, asked for by stable-baselines3 or
# anything else, would pull gigabytes of CUDA wheels) and gymnasium to 1.2.2 (what ray[rllib]
# pins), so every set of extras runs on the version set the test suite runs on.
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-train,test,bench,render,docs,examples,ray}"
python="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
    "$python" -m venv .venv
fi
pip=(.venv/bin/python -m pip install --quiet --disable-pip-version-check -c constraints.txt)
case ",$extras," in
    *,train,*|*,examples,*|*,ray,*) "${pip[@]}" "torch==2.13.0" ;;
esac
"${pip[@]}" -e ".[$extras]"
echo "setup: .venv ready with extras [$extras]" >&2
