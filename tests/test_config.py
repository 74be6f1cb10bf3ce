"""Training configs: numbers as people write them, a range for every number, packaged configs, --dry-run."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("yaml")

from mancala_envs.cli import main  # noqa: E402
from mancala_envs.training.config import (  # noqa: E402
    NUMBER_BOUNDS,
    ConfigError,
    TrainConfig,
    load_config,
    load_yaml,
    number_fields,
    packaged_configs,
)

ROOT = Path(__file__).resolve().parents[1]
QUICK = ROOT / "configs" / "kalah-v0-quick.yaml"


def test_exponents_are_numbers_in_files_and_overrides(tmp_path):
    assert load_yaml("[1e-4, 3e-4, 1e5, 3.0e-4, -2E+2, .5e1, e5, 1e, 12]") == [
        1e-4, 3e-4, 1e5, 3e-4, -200.0, 5.0, "e5", "1e", 12]
    config = load_config(QUICK, ["ppo.learning_rate=1e-4", "total_timesteps=2e4"])
    assert config.ppo.learning_rate == 1e-4 and config.total_timesteps == 20000
    assert isinstance(config.total_timesteps, int)
    written = tmp_path / "c.yaml"
    written.write_text("ppo: {learning_rate: 3e-4}\ntotal_timesteps: 1e5\n")
    config = load_config(written)
    assert config.ppo.learning_rate == 3e-4 and config.total_timesteps == 100000
    with pytest.raises(ConfigError, match=r"total_timesteps must be an integer, got 1500.5"):
        load_config(None, ["total_timesteps=1.5005e3"])


@pytest.mark.parametrize(
    "overrides, message",
    [
        (["ppo.gamma=5"], "ppo.gamma must be from 0 to 1, got 5.0"),
        (["ppo.gae_lambda=-0.1"], "ppo.gae_lambda must be from 0 to 1, got -0.1"),
        (["ppo.learning_rate=0"], "ppo.learning_rate must be greater than 0, got 0.0"),
        (["ppo.clip_range=0"], "ppo.clip_range must be greater than 0"),
        (["ppo.ent_coef=-1"], "ppo.ent_coef must be at least 0"),
        (["seed=-1"], "seed must be at least 0, got -1"),
        (["ppo.net_arch=[64, 0]"], r"ppo.net_arch\[1\] must be at least 1, got 0"),
        (["pool.baselines={random: 0}"], r"pool.baselines\['random'\] must be greater than 0, got 0.0"),
        (["eval.opening_plies=[-1, 2]"], r"eval.opening_plies\[0\] must be at least 0"),
        (["ppo.batch_size=1"], "ppo.batch_size must be at least 2, got 1"),
        (["ppo.batch_size=1000"], r"ppo.batch_size=1000 must divide the rollout of num_envs \* ppo.n_steps = "
                                  r"32 \* 128 = 4096 transitions .*e.g. ppo.batch_size=512"),
        (["num_envs=3", "ppo.n_steps=10", "ppo.batch_size=64"], "ppo.batch_size=64 must divide the rollout .* = 30"),
    ],
)
def test_out_of_range_values_are_refused(overrides, message):
    with pytest.raises(ConfigError, match=message):
        load_config(QUICK, overrides)


def test_every_number_of_the_config_has_a_range():
    """A new numeric config field needs its entry in NUMBER_BOUNDS, or it goes unchecked."""
    fields = number_fields(TrainConfig)
    assert "ppo.gamma" in fields and "ppo.net_arch[]" in fields and "pool.baselines[]" in fields
    assert sorted(set(fields) - set(NUMBER_BOUNDS)) == []
    assert sorted(set(NUMBER_BOUNDS) - set(fields)) == [], "a range for a key the config does not have"


def test_packaged_configs_are_the_configs_folder():
    packaged = packaged_configs()
    assert sorted(packaged) == sorted(p.stem for p in (ROOT / "configs").glob("*.yaml"))
    assert packaged["kalah-v0"].read_text() == (ROOT / "configs" / "kalah-v0.yaml").read_text()
    assert load_config("kalah-v0").to_dict() == load_config(ROOT / "configs" / "kalah-v0.yaml").to_dict()
    with pytest.raises(ConfigError, match="no packaged config of that name; packaged configs: afrika-v0, afrika-v0-value, kalah-v0"):
        load_config("kalah-v9")
    with pytest.raises(ConfigError, match="cannot read config"):
        load_config("missing/kalah-v0.yaml")


def test_dry_run_prints_the_resolved_config(capsys):
    assert main(["train", "kalah-v0", "ppo.learning_rate=1e-4", "--dry-run"]) == 0
    text = capsys.readouterr().out
    assert "  learning_rate: 0.0001\n" in text and "total_timesteps: 5000000\n" in text
    assert load_yaml(text)["ppo"]["learning_rate"] == 1e-4
    assert main(["train", str(QUICK), "ppo.learning_rate=3e-4", "total_timesteps=20000", "--dry-run"]) == 0
    resolved = load_yaml(capsys.readouterr().out)
    assert resolved["total_timesteps"] == 20000 and resolved["ppo"]["learning_rate"] == 3e-4
    assert main(["train", "kalah-v0", "ppo.gamma=5", "--dry-run"]) == 2
    assert "ppo.gamma must be from 0 to 1, got 5.0" in capsys.readouterr().err
