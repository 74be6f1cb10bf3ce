"""Self-play training of MaskablePPO and its evaluation (``mancala train``, ``mancala eval``).

``config`` (the typed YAML config), ``selfplay`` (the SB3 VecEnv with opponents inside),
``train`` (the training loop: ``Trainer``), ``evaluation`` (games against agent specs, the
ladder, Elo ratings, ``evaluate_saved_model``), ``report`` (report files, plots, the results
table) and ``run_folder`` (the files of a run, starting and resuming one).
"""
