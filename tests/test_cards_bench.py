"""benchmarks/cards.py: the card games' figures (kernel, MCTS, alpha-beta), its worker
protocol, and its refusal of a bad baseline or id. The baseline comparison itself compiles a
second copy of the package, which takes minutes: it is run by hand, not here."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import cards  # noqa: E402


def test_one_id_measured_here_only(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(cards.BUDGETS, "quick", ((0.02, 20, 0.02), 1))
    out = tmp_path / "cards.json"
    assert cards.main(["--quick", "--ids", "widdershins-parlett-v0", "--out", str(out)]) == 0
    result = json.loads(out.read_text())
    row = result["figures"]["widdershins-parlett-v0"]
    assert set(row) == set(cards.KINDS)
    for fig in row.values():
        assert fig["new"] > 0 and len(fig["new_samples"]) == 1 and "ratio" not in fig
    assert "baseline_commit" not in result and result["rounds"] == 1
    assert "widdershins-parlett-v0" in capsys.readouterr().out


def test_a_bad_baseline_or_id_is_refused(capsys):
    with pytest.raises(SystemExit) as err:
        cards.main(["--quick", "--ids", "rondell-v0", "--baseline", "no-such-ref-anywhere"])
    assert err.value.code == 2
    assert "--baseline: baseline 'no-such-ref-anywhere' is not a commit" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cards.main(["--ids", "kalah-v0"])
    assert "not card-game ids" in capsys.readouterr().err
