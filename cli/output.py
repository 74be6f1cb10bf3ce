"""Machine-readable output stays machine-readable: with ``--json``, stdout holds only the JSON.

Ray's driver prints lines of its own on stdout (a ``(raylet)`` line when a worker is lost,
from a background thread and from C++), and so may any library a run loads. While a
``--json`` command runs, ``only_json_on_stdout`` points the process's stdout (the file
descriptor, so C code and child processes follow too, and ``sys.stdout``) at stderr; a Ray
the run started or joined is shut down before stdout is given back, so no late line of its
threads can follow (a Ray the caller already had up is left running); then the command
prints its JSON on the real stdout.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Iterator


@contextlib.contextmanager
def only_json_on_stdout(enabled: bool) -> Iterator[None]:
    """While the block runs, everything written to stdout goes to stderr (if ``enabled``)."""
    if not enabled:
        yield
        return
    ray_was_up = _ray_is_up()
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        os.dup2(2, 1)
        with contextlib.redirect_stdout(sys.stderr):
            try:
                yield
            finally:
                if not ray_was_up:
                    _leave_ray()
                sys.stderr.flush()
    finally:
        os.dup2(saved, 1)
        os.close(saved)


def _ray_is_up() -> bool:
    ray = sys.modules.get("ray")
    return ray is not None and ray.is_initialized()


def _leave_ray() -> None:
    """Shut down the Ray this run started or joined (a Ray the caller had up is left alone)."""
    backend = sys.modules.get("mancala_envs.evaluation.ray_backend")
    if backend is not None:
        backend.disconnect()
