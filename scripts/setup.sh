#!/usr/bin/env bash
# Create ./.venv (once) and install mancala-envs into it, editable, with the given extras.
#   bash scripts/setup.sh            # all extras: train, test, bench, render, web, docs, examples, ray
#   bash scripts/setup.sh train      # what the main job needs
#   bash scripts/setup.sh render     # pictures, mancala play --window, replay --gif
#   bash scripts/setup.sh web        # mancala serve (Flask); with web or test, apt-get installs chromium
#                                    # and chromium-driver for the browser tests when run as root
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
case ",$extras," in
    *,test,*|*,web,*)
        # the browser tests of mancala serve drive Debian's headless Chromium through its chromedriver
        # (tests/test_serve_browser.py); no browser is ever downloaded by pip or a driver manager
        if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then
            :
        elif [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
            echo "setup: installing chromium and chromium-driver with apt-get (the browser tests)" >&2
            { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null; } \
                || echo "setup: apt-get could not install chromium; the browser tests will be skipped (under CI=true they fail)" >&2
        else
            echo "setup: the browser tests need chromium and chromium-driver (Debian: sudo apt-get install chromium chromium-driver); without them they are skipped (under CI=true they fail)" >&2
        fi
        ;;
esac
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
