"""Game families. Importing this package registers every id (see ``mancala_envs.registry``).

Each family module defines ``register_ids()``, which registers its ids and presets; add a
new family's module name to ``FAMILIES``.
"""

from importlib import import_module

FAMILIES = ("kalah", "progressive", "afrika", "rondell", "widdershins")

for _name in FAMILIES:
    import_module(f"{__name__}.{_name}").register_ids()
