"""Without an optional extra, each command that needs it says which extra and how to install it."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from mancala_envs.core.extras import MissingExtraError, install_command, require_extra

INSTALL = install_command("train")  # fits this install (tests/test_install_advice.py checks each kind)


def run_without(modules: list[str], argv: list[str]) -> subprocess.CompletedProcess:
    """``mancala ARGV`` in a fresh interpreter where importing any of ``modules`` fails."""
    script = textwrap.dedent(f"""
        import sys
        for name in {modules!r}:
            sys.modules[name] = None  # import raises ModuleNotFoundError, as when it is not installed
        from mancala_envs.cli import main
        sys.exit(main({argv!r}))
    """)
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)


def test_require_extra_names_the_extra_and_the_command():
    assert require_extra("json", "train", "x").dumps([]) == "[]"
    with pytest.raises(MissingExtraError, match=r"reading things needs no_such_module_x, which is not installed: "
                                                r"it comes with the 'train' extra"):
        require_extra("no_such_module_x", "train", "reading things")
    editable = {"url": "file:///src/mancala-envs", "dir_info": {"editable": True}}
    assert install_command("train", editable, "0.1.0").startswith(
        'bash scripts/setup.sh train  (or: pip install -c constraints.txt -e ".[train]")')


@pytest.mark.parametrize("argv, missing", [
    (["train", "kalah-v0-quick", "--dry-run"], "yaml"),
    (["train", "kalah-v0-quick"], "sb3_contrib"),
    (["eval", "runs/none", "--env", "kalah-v0"], "yaml"),
    (["eval", "runs/none", "--env", "kalah-v0"], "torch"),
    (["match", "kalah-v0", "policy:runs/none", "random"], "sb3_contrib"),
])
def test_commands_without_the_train_extra(argv, missing):
    out = run_without([missing], argv)
    assert out.returncode == 2, out.stderr
    assert "Traceback" not in out.stderr
    assert f"needs {missing}, which is not installed: it comes with the 'train' extra" in out.stderr
    assert INSTALL in out.stderr
