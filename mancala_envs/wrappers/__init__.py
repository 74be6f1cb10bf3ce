"""Adapters to other frameworks' env interfaces, each importing its framework at its top.

``mancala_envs.wrappers.rllib``: RLlib's ``MultiAgentEnv`` with the ``observations`` and
``action_mask`` keys its action-masking modules expect (needs the ``ray`` extra). Nothing is
imported here, so ``import mancala_envs.wrappers`` needs no framework.
"""
