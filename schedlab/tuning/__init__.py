"""Tuning: searching the schedule space under measuring rules, on the model's landscapes or measured ones.

The layer above :mod:`schedlab.core`; nothing here imports a chapter's study. Bottom up:

- :mod:`~schedlab.tuning.neighbours` and :mod:`~schedlab.tuning.features`: what a strategy may know
  before measuring (one-knob neighbours; every learned model's features, in one place);
- :mod:`~schedlab.tuning.measurer`: the rules of measuring (:class:`~schedlab.tuning.measurer.Measurer`),
  the noise and the search context of one shape; :mod:`~schedlab.tuning.measured`: a measured
  landscape as a search context;
- :mod:`~schedlab.tuning.harness`: the strategy-core contract, its checks and the traces;
  :mod:`~schedlab.tuning.strategies`: one module per strategy, with the one registry
  (:data:`~schedlab.tuning.strategies.CORES`, :data:`~schedlab.tuning.strategies.STRATEGIES`);
- :mod:`~schedlab.tuning.cache`: the Kernel Tuner cache file, read and written;
  :mod:`~schedlab.tuning.export`: a landscape exported as one (or as T4 results);
- :mod:`~schedlab.tuning.kernel_tuner_adapter` and :mod:`~schedlab.tuning.optuna_adapter`: the
  libraries under the rules; :mod:`~schedlab.tuning.tuners`: them as strategy cores;
  :mod:`~schedlab.tuning.records`: their runs recorded and replayed (one machine identity);
- :mod:`~schedlab.tuning.compare`: strategies over shapes and seeds; :mod:`~schedlab.tuning.covers`: the
  fewest configurations that serve a sweep over ``M``; :mod:`~schedlab.tuning.regression`
  and :mod:`~schedlab.tuning.learned`: the learned cost model and its cross-validation;
  :mod:`~schedlab.tuning.surrogates`: model-guided search with plainer features.

Import a name from the module that defines it; this package re-exports nothing.
"""
