"""A missing extra's message names the install command that fits how the package was installed.

pip records how it installed a distribution in ``direct_url.json`` (PEP 610);
``mancala_envs.core.extras.install_command`` reads it. Each kind of install is checked here
with the record pip writes for it, and the real record of the install running the tests.
"""

from __future__ import annotations

import importlib.metadata
import json

import pytest

from mancala_envs.core.extras import MissingExtraError, install_command, install_origin, require_extra


@pytest.mark.parametrize(
    "origin, command",
    [
        ({"url": "file:///src/mancala-envs", "dir_info": {"editable": True}},
         'bash scripts/setup.sh ray  (or: pip install -c constraints.txt -e ".[ray]"), in the clone /src/mancala-envs'),
        ({"url": "file:///src/mancala%20envs", "dir_info": {}},
         'pip install -c /src/mancala envs/constraints.txt "/src/mancala envs[ray]"'),
        ({"url": "file:///tmp/mancala_envs-0.1.0-py3-none-any.whl", "archive_info": {"hashes": {}}},
         'pip install "mancala-envs[ray] @ file:///tmp/mancala_envs-0.1.0-py3-none-any.whl"'),
        ({"url": "https://example.org/mancala-envs.git", "vcs_info": {"vcs": "git", "commit_id": "0123abc"}},
         'pip install "mancala-envs[ray] @ git+https://example.org/mancala-envs.git@0123abc"'),
        (None, 'pip install "mancala-envs[ray]==0.1.0"'),
    ],
    ids=["editable-clone", "folder", "wheel-file", "git", "index"],
)
def test_the_command_fits_each_kind_of_install(origin, command):
    assert install_command("ray", origin, "0.1.0") == command


def test_only_an_editable_install_is_told_to_use_the_clone():
    for origin in (None, {"url": "file:///w/m.whl", "archive_info": {}}):
        advice = install_command("train", origin, "0.1.0")
        assert "clone" not in advice and "scripts/setup.sh" not in advice and "constraints.txt" not in advice


def test_the_running_install_is_read_from_its_direct_url_json():
    """The record pip wrote for the install running the tests, not a source tree's egg-info."""
    records = [d.read_text("direct_url.json") for d in importlib.metadata.distributions(name="mancala-envs")]
    written = [json.loads(text) for text in records if text]
    origin, version = install_origin()
    assert origin == (written[0] if written else None)
    assert version == importlib.metadata.version("mancala-envs")


def test_missing_extra_message_carries_the_fitting_command(monkeypatch):
    import mancala_envs.core.extras as extras

    monkeypatch.setattr(extras, "install_origin", lambda: (None, "0.1.0"))
    with pytest.raises(MissingExtraError) as err:
        require_extra("no_such_module_x", "render", "pictures")
    assert str(err.value).endswith('Install it with: pip install "mancala-envs[render]==0.1.0"')
    assert "clone" not in str(err.value)
