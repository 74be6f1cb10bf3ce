"""Writing files so that nothing half-written is ever left behind."""

from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator


@contextmanager
def atomic_output(path: str | os.PathLike) -> Iterator[Path]:
    """A temporary file beside ``path`` to write; renamed onto ``path`` when the block succeeds.

    If the block raises, the temporary file is removed and ``path`` is left as it was.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
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
