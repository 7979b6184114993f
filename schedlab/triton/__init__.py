"""The model inside Triton: :mod:`~schedlab.triton.hook` (the ``prune_configs_by`` hook, :class:`~schedlab.triton.hook.Pruner`,
and the knob names Triton's configs use) and :mod:`~schedlab.triton.configs` (Triton's own config lists, measured under the rules).

Nothing here imports Triton: a ``triton.Config`` is read through its attributes.
"""
