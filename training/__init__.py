"""Training and its evaluation (``mancala train``, ``mancala eval``).

The main job is the search-bootstrap trainer (``search_bootstrap``): a learned evaluation
trained from self-play search, every move an alpha-beta search whose leaves the current
network values, evaluated inside alpha-beta and as a bare policy network over an opening
suite. ``ppo`` (sb3-contrib's MaskablePPO, with ``selfplay``: the SB3 VecEnv with opponents
inside) and ``rllib_trainer`` (RLlib's PPO) train a policy network by self-play.

``config`` (the typed YAML config), ``algorithms`` (the algorithm registry: what each
trainer reads), ``train`` (``make_trainer``), ``trainer_base`` (what every trainer shares), ``evaluation`` (games against agent specs, the
ladder, Elo ratings, ``evaluate_saved_model``), ``report`` (report files, plots, the results
table), ``run_folder`` (the files of a run, starting and resuming one) and ``checkpoint``
(one checkpoint protocol for every trainer: committed whole, the previous one kept).
"""
