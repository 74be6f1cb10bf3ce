"""Game families, one module each: its kernel, its ``Game`` class and its ``VARIANTS``
(the registered ids as plain data). ``mancala_envs.registry`` names the modules and
registers their variants."""
