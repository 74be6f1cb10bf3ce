"""The training configs of ``mancala train``, shipped with the package as ``mancala_envs.configs``.

This folder is their source (one YAML file per game or experiment, see ``README.md``);
``mancala train NAME`` reads ``NAME.yaml`` from here (``mancala_envs.training.config``).
"""
