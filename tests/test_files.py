"""Atomic writes: the target is replaced whole or not at all; killed writers' leftovers are cleared."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from mancala_envs.core.files import atomic_output, remove_stale_temporaries, write_text_atomic


def test_atomic_output_replaces_whole_or_leaves_the_old_file(tmp_path):
    target = tmp_path / "sub" / "model.zip"
    with atomic_output(target, suffix=".zip") as tmp:
        assert tmp.parent == target.parent and tmp.name.startswith(".model.zip.") and tmp.suffix == ".zip"
        tmp.write_bytes(b"first")
    assert target.read_bytes() == b"first"
    assert oct(target.stat().st_mode & 0o777) == oct(0o666 & ~_umask())
    with pytest.raises(RuntimeError):
        with atomic_output(target) as tmp:
            tmp.write_bytes(b"half")
            raise RuntimeError("writer failed")
    assert target.read_bytes() == b"first"
    assert sorted(p.name for p in target.parent.iterdir()) == ["model.zip"]


def test_stale_temporaries_of_a_killed_writer_are_removed(tmp_path):
    target = tmp_path / "checkpoints" / "latest.zip"
    write_text_atomic(tmp_path / "state.json", "{}")
    script = (
        "import os, sys\n"
        "from mancala_envs.core.files import atomic_output\n"
        f"with atomic_output({str(target)!r}, suffix='.zip') as tmp:\n"
        "    tmp.write_bytes(b'partial')\n"
        "    os._exit(9)  # dies mid-write, like SIGKILL: no clean-up runs\n"
    )
    assert subprocess.run([sys.executable, "-c", script]).returncode == 9
    leftovers = [p.name for p in target.parent.iterdir()]
    assert len(leftovers) == 1 and leftovers[0].startswith(".latest.zip.") and not target.exists()
    removed = remove_stale_temporaries(tmp_path)
    assert [p.name for p in removed] == leftovers
    assert list(target.parent.iterdir()) == [] and (tmp_path / "state.json").read_text() == "{}"


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
