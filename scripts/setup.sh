#!/usr/bin/env bash
# Create ./.venv (once) and install mancala-envs into it, editable, with the given extras.
#   bash scripts/setup.sh            # all extras: train, test, bench, render, web, docs, examples, ray
#   bash scripts/setup.sh train      # what the main job needs
#   bash scripts/setup.sh render     # pictures, mancala play --window, replay --gif
#   WARM=1 bash scripts/setup.sh train   # then compile the searches of every game family once
#                                        # (numba's disk cache), so their first use loads them
# constraints.txt pins torch to 2.13.0 (any other version, asked for by stable-baselines3 or
# anything else, would pull gigabytes of CUDA wheels) and gymnasium to 1.2.2 (what ray[rllib]
# pins), so every set of extras runs on the version set the test suite runs on.
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-train,test,bench,render,web,docs,examples,ray}"
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
if [ "${WARM:-0}" = "1" ]; then
    # the first move of alpha-beta and MCTS on each family's main id compiles both loops and the
    # kernel; each compile announces itself on stderr (mancala_envs.core.announce)
    .venv/bin/python - <<'PY'
import mancala_envs
from mancala_envs.agents.specs import make_agent
from mancala_envs.registry import main_ids
for env_id in main_ids():
    state = mancala_envs.make_game(env_id).new_state(0)
    for spec in ("alphabeta:depth=1", "mcts:sims=2"):
        make_agent(spec, seed=0).act(state)
PY
    echo "setup: searches compiled for every game family" >&2
fi
