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
QUICK = ROOT / "configs" / "kalah-v0-quick.yaml"  # algo: search-bootstrap
PPO = ROOT / "configs" / "kalah-v0.yaml"  # algo: ppo


def test_exponents_are_numbers_in_files_and_overrides(tmp_path):
    assert load_yaml("[1e-4, 3e-4, 1e5, 3.0e-4, -2E+2, .5e1, e5, 1e, 12]") == [
        1e-4, 3e-4, 1e5, 3e-4, -200.0, 5.0, "e5", "1e", 12]
    config = load_config(PPO, ["ppo.learning_rate=1e-4", "total_timesteps=2e4"])
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
                                  r"64 \* 128 = 8192 transitions .*e.g. ppo.batch_size=512"),
        (["num_envs=3", "ppo.n_steps=10", "ppo.batch_size=64"], "ppo.batch_size=64 must divide the rollout .* = 30"),
    ],
)
def test_out_of_range_values_are_refused(overrides, message):
    with pytest.raises(ConfigError, match=message):
        load_config(PPO, overrides)


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
    with pytest.raises(ConfigError, match="no packaged config of that name; packaged configs: afrika-v0, afrika-v0-value, kalah-irving2000-quick, kalah-v0"):
        load_config("kalah-v9")
    with pytest.raises(ConfigError, match="cannot read config"):
        load_config("missing/kalah-v0.yaml")


def test_dry_run_prints_the_resolved_config(capsys):
    assert main(["train", "kalah-v0", "ppo.learning_rate=1e-4", "--dry-run"]) == 0
    text = capsys.readouterr().out
    assert "  learning_rate: 0.0001\n" in text and "total_timesteps: 5000000\n" in text
    assert load_yaml(text)["ppo"]["learning_rate"] == 1e-4
    assert main(["train", str(PPO), "ppo.learning_rate=3e-4", "total_timesteps=20000", "--dry-run"]) == 0
    resolved = load_yaml(capsys.readouterr().out)
    assert resolved["total_timesteps"] == 20000 and resolved["ppo"]["learning_rate"] == 3e-4
    assert "value" not in resolved and "rllib" not in resolved  # only what algo ppo reads
    assert main(["train", "kalah-v0", "ppo.gamma=5", "--dry-run"]) == 2
    assert "ppo.gamma must be from 0 to 1, got 5.0" in capsys.readouterr().err
    # the main job: the value section with its policy section, nothing of PPO's
    assert main(["train", "kalah-v0-quick", "value.policy.teacher=plain", "--dry-run"]) == 0
    resolved = load_yaml(capsys.readouterr().out)
    assert sorted(resolved) == ["algo", "backend", "env_id", "eval", "name", "options", "ray_address", "runs_dir",
                                "seed", "torch_threads", "value"]
    assert resolved["value"]["policy"]["teacher"] == "plain" and "every" not in resolved["eval"]
    assert main(["train", "kalah-v0-quick", "ppo.learning_rate=1e-4", "--dry-run"]) == 2
    assert "ppo.learning_rate (an override) is not used by algo search-bootstrap" in capsys.readouterr().err


def test_only_the_chosen_algorithms_sections_are_validated():
    # a search-bootstrap config is not refused over PPO values it never reads (which the file cannot
    # give: the next tests), while the same values refuse a PPO config
    config = load_config(QUICK)
    config.ppo.batch_size = 1000  # would not divide PPO's rollout
    config.ppo.gamma = 5.0
    config.pool.baselines = {}
    config.num_envs = 0
    config.validate()
    config.algo = "ppo"
    with pytest.raises(ConfigError, match="num_envs must be at least 1, got 0"):
        config.validate()


@pytest.mark.parametrize(
    "source, overrides, message",
    [
        (QUICK, ["ppo.learning_rate=1e-4"],
         r"ppo.learning_rate \(an override\) is not used by algo search-bootstrap: it reads the sections value, eval "
         r"and the top-level keys env_id, .*; did you mean value.learning_rate\?"),
        (QUICK, ["total_timesteps=20000"],
         r"total_timesteps \(an override\) is not used by algo search-bootstrap: .*; give value.iterations"),
        (QUICK, ["eval.every=5"], r"eval.every \(an override\) .*; give value.eval_every"),
        (QUICK, ["checkpoint_every=5"], r"checkpoint_every \(an override\) is not used by algo search-bootstrap"),
        (PPO, ["value.iterations=3"],
         r"value.iterations \(an override\) is not used by algo ppo: it reads the sections ppo, pool, eval"),
        (PPO, ["algo=rllib_ppo", "num_envs=8"], r"num_envs \(in .*kalah-v0.yaml\) is not used by algo rllib_ppo: "
                                                r".*; give rllib.num_envs_per_env_runner"),
    ],
)
def test_a_key_the_algorithm_does_not_read_is_refused(source, overrides, message):
    with pytest.raises(ConfigError, match=message):
        load_config(source, overrides)


def test_a_section_the_algorithm_does_not_read_is_refused_in_a_file(tmp_path):
    written = tmp_path / "c.yaml"
    written.write_text("algo: search-bootstrap\nppo: {batch_size: 1000}\ntotal_timesteps: 5\n")
    with pytest.raises(ConfigError, match=rf"ppo.batch_size \(in {written}\) is not used by algo search-bootstrap: "
                                          r"it reads the sections value, eval"):
        load_config(written)


def test_the_policy_section_round_trips_through_yaml_and_overrides(tmp_path):
    from mancala_envs.training.config import PolicyConfig, config_from_dict

    written = tmp_path / "c.yaml"
    written.write_text("algo: search-bootstrap\nvalue:\n  depth: 2\n  policy: {teacher: plain, hidden: [16]}\n")
    config = load_config(written, ["value.policy.temperature=0.5", "value.policy.move_hidden=[]"])
    assert config.value.policy == PolicyConfig(teacher="plain", hidden=[16], temperature=0.5)
    saved = load_yaml(__import__("yaml").safe_dump(config.to_dict()))
    assert saved["value"]["policy"]["hidden"] == [16] and config_from_dict(saved) == config
    with pytest.raises(ConfigError, match=r"unknown config key value.policy_teacher \(did you mean "
                                          r"value.policy.teacher\?\); valid keys in value: .*policy"):
        load_config(QUICK, ["value.policy_teacher=plain"])
    with pytest.raises(ConfigError, match=r"value.policy.epochs must be at least 0, got -1"):
        load_config(QUICK, ["value.policy.epochs=-1"])
    with pytest.raises(ConfigError, match=r"unknown config key value.policy.teachr \(did you mean "
                                          r"value.policy.teacher\?\); valid keys in value.policy: teacher"):
        load_config(QUICK, ["value.policy.teachr=plain"])


def test_a_saved_config_keeps_only_what_its_algorithm_reads():
    from mancala_envs.training.config import TrainConfig as Config, config_from_dict

    every_section = dict(load_config(QUICK).to_dict(), ppo={"batch_size": 1000}, total_timesteps=7)
    assert config_from_dict(every_section).to_dict() == load_config(QUICK).to_dict()  # run folders saved all sections
    assert "ppo" not in load_config(QUICK).to_dict() and Config().to_dict()["ppo"]["batch_size"] == 256
