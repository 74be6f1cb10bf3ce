"""Writing files so that nothing half-written is ever left behind."""

from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator


TEMPORARY_MARK = ".tmp"


@contextmanager
def atomic_output(path: str | os.PathLike, suffix: str = "") -> Iterator[Path]:
    """A temporary file beside ``path`` to write; renamed onto ``path`` when the block succeeds.

    If the block raises, the temporary file is removed and ``path`` is left as it was. The
    temporary name is ``.NAME.XXXX.tmp`` plus ``suffix`` (for writers that insist on an
    extension, e.g. ``".zip"``); a process killed while writing leaves it behind, and
    ``remove_stale_temporaries`` clears such files away.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=TEMPORARY_MARK + suffix, dir=target.parent)
    umask = os.umask(0)
    os.umask(umask)
    try:
        os.fchmod(fd, 0o666 & ~umask)  # mkstemp makes 0600; give the file the usual permissions
        os.close(fd)
        yield Path(tmp)
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_text_atomic(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` to a temporary file beside ``path``, then rename it into place."""
    with atomic_output(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def remove_stale_temporaries(folder: str | os.PathLike) -> list[Path]:
    """Delete the temporary files ``atomic_output`` left in ``folder`` (and below) when killed.

    Only for a folder no live process is writing to (e.g. a run being resumed). Returns the
    files removed.
    """
    stale = [p for p in Path(folder).rglob(f".*{TEMPORARY_MARK}*") if p.is_file()]
    for p in stale:
        p.unlink()
    return stale
