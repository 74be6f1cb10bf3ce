"""Learned move pickers: evaluations and policies fitted by a training run.

``learned_eval`` reads a run's ``evaluation.npz`` and compiles its networks for the numba
search (``alphabeta:...,eval=RUN``, ``mcts:...,eval=RUN``) and as a bare policy
(``policy:RUN``); ``move_features`` adds what each move does as network inputs for the games
that have them; ``features`` holds the SB3 features
extractors; ``frozen_policy`` and ``policy`` play a saved MaskablePPO model.
"""
