"""The measured-results pages come from ``benchmarks/results/*.json`` and nothing else.

``scripts/gen_results_pages.py`` writes ``docs/performance.md``, ``docs/solver.md`` and
``docs/strength.md`` and the README's headline block. Checked here: the committed files build every
page; a value changed in a copy of a file changes the page; the script's own text adds no figure
(no results file: no figure on any page); the committed pages and README block are what the
script makes of the committed results; bad input is refused with a message.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "gen_results_pages.py"
FIGURE = re.compile(r"\d+(?:\.\d+)?\s*(?:%|x\b|s\b|[kMG]\b)")


@pytest.fixture(scope="module")
def gen():
    spec = importlib.util.spec_from_file_location("gen_results_pages", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # imported, not run: it writes nothing
    return module


@pytest.fixture
def results_copy(tmp_path):
    folder = tmp_path / "results"
    shutil.copytree(ROOT / "benchmarks" / "results", folder)
    return folder


def test_committed_results_build_every_page(gen):
    results = gen.load_results()
    assert results, "benchmarks/results/ holds no JSON file"
    pages = gen.build_pages(results)
    assert set(pages) == {"performance", "solver", "strength"}
    for page, text in pages.items():
        assert text.startswith(f"# {gen.PAGES[page]}\n")
        assert "No results file for this page yet." not in text, page
    for name in results:  # every file is shown, with where it came from
        assert any(f"`benchmarks/results/{name}`" in text for text in pages.values()), name


def test_recorded_tables_carry_their_provenance(gen):
    for name, data in gen.load_results().items():
        if gen.kind_of(data) == "recorded":
            for key in ("page", "title", "command", "commit", "measured_at", "machine", "columns", "rows", "notes"):
                assert key in data, f"{name}: no {key!r}"
            assert data["page"] in gen.PAGES, name
            assert all(len(row) == len(data["columns"]) for row in data["rows"]), name


@pytest.mark.parametrize("name, path, new, expected", [
    ("latest.json", ("figures", "kernel", "value"), 12_340_000.0, "12.3 M moves/s"),
    ("latest.json", ("ratios", "mcts_vs_openspiel_sims"), 7.77, "7.77x"),
    ("solve.json", ("boards", 0, "nodes"), 4321, "4,321"),
    ("strength_main.json", ("rows", 0, "score"), 0.543, "54.3%"),
    ("recorded_solver_tried.json", ("rows", 0, 2), "98.7 M nodes", "98.7 M nodes"),
])
def test_a_changed_value_changes_the_page(gen, results_copy, name, path, new, expected):
    before = gen.build_pages(gen.load_results(results_copy))
    data = json.loads((results_copy / name).read_text(encoding="utf-8"))
    node = data
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = new
    (results_copy / name).write_text(json.dumps(data), encoding="utf-8")
    after = gen.build_pages(gen.load_results(results_copy))
    changed = [page for page in after if after[page] != before[page]]
    assert changed, f"changing {name} {path} changed no page"
    assert any(expected in after[page] for page in changed), expected


def test_the_script_adds_no_figure_of_its_own(gen, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    pages = gen.build_pages(gen.load_results(empty))
    for page, text in pages.items():
        assert "No results file for this page yet." in text
        assert not FIGURE.search(text), f"{page}: {FIGURE.search(text).group()}"
    assert gen.headline_rows({}) == []


def test_headline_rows_link_to_their_pages(gen):
    block = gen.headline_block(gen.load_results())
    lines = block.split("\n")
    assert lines[0] == gen.BEGIN and lines[-1] == gen.END
    rows = lines[3:-1]
    assert 5 <= len(rows) <= 10
    assert all(re.search(r"\]\(docs/(performance|solver|strength)\.md\)", row) for row in rows)
    for words in ("OpenSpiel", "BatchEnv", "MCTSBot", "first search move", "Main job", "learned evaluation", "Solver",
                  "Against perfect play", "bare network: `policy:RUN`"):
        assert words in block, words


def test_the_oracle_headline_is_the_lowest_seed_of_the_best_agent(gen):
    def entry(agent, seed, rate):
        return {"env_id": "kalah-v0", "agent": agent, "positions": 500, "rate": rate, "rate_ci": [rate - 0.02, rate + 0.02],
                "ms_per_move": 2.0, "train_seed": seed}

    rates = {"a0": entry("mcts:sims=800,eval=RUN", 0, 0.90), "a1": entry("mcts:sims=800,eval=RUN", 1, 0.80),
             "b0": entry("hybrid:eval=RUN", 0, 0.88), "b1": entry("hybrid:eval=RUN", 1, 0.86),
             "p0": entry("policy:RUN", 0, 0.70), "p1": entry("policy:RUN", 1, 0.75)}
    rows = gen._oracle_headline([("strength_main", {"setting": "main", "optimal_move_rate": rates}),
                                 ("strength_irving", {"setting": "irving", "optimal_move_rate": {"x": entry("x,eval=RUN", 0, 1.0)}})])
    assert [what.rsplit(": ", 1)[1] for what, _, _ in rows] == ["`hybrid:eval=RUN`", "`policy:RUN`"]
    assert rows[0][1].startswith("86.0% (84.0-88.0%) optimal moves (the lowest of 2 training seeds)")
    assert rows[1][1].startswith("70.0%")


def test_readme_block_is_rewritten_between_the_markers(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("# x\n\nbefore\n<!-- headline-results:begin -->\nold\n<!-- headline-results:end -->\nafter\n",
                      encoding="utf-8")
    out = ["--readme", str(readme), "--out", str(tmp_path / "pages")]
    done = subprocess.run([sys.executable, str(SCRIPT), *out], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    text = readme.read_text(encoding="utf-8")
    assert text.startswith("# x\n\nbefore\n<!-- headline-results:begin -->\n| measured |")
    assert text.endswith("<!-- headline-results:end -->\nafter\n") and "\nold\n" not in text
    again = subprocess.run([sys.executable, str(SCRIPT), *out], capture_output=True, text=True)
    assert again.returncode == 0 and readme.read_text(encoding="utf-8") == text  # idempotent


def test_committed_pages_and_readme_block_match_the_results():
    done = subprocess.run([sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_check_names_a_stale_page(tmp_path):
    pages = tmp_path / "pages"
    readme = tmp_path / "README.md"
    shutil.copy(ROOT / "README.md", readme)
    args = [sys.executable, str(SCRIPT), "--out", str(pages), "--readme", str(readme)]
    assert subprocess.run(args, capture_output=True, text=True).returncode == 0
    (pages / "solver.md").write_text("edited by hand\n", encoding="utf-8")
    done = subprocess.run([*args, "--check"], capture_output=True, text=True)
    assert done.returncode == 1 and "solver.md" in done.stderr and "strength.md" not in done.stderr


def test_bad_input_is_refused(gen, tmp_path, results_copy):
    readme = tmp_path / "README.md"
    readme.write_text("no markers\n", encoding="utf-8")
    done = subprocess.run([sys.executable, str(SCRIPT), "--readme", str(readme), "--out", str(tmp_path)],
                          capture_output=True, text=True)
    assert done.returncode == 2 and "headline-results:begin" in done.stderr
    (results_copy / "broken.json").write_text("{", encoding="utf-8")
    with pytest.raises(gen.ResultsError, match="broken.json"):
        gen.load_results(results_copy)
    (results_copy / "broken.json").write_text(json.dumps({"schema": gen.RECORDED, "page": "nowhere", "title": "t",
                                                          "columns": [], "rows": []}), encoding="utf-8")
    with pytest.raises(gen.ResultsError, match="nowhere"):
        gen.build_pages(gen.load_results(results_copy))
