"""Tables of the guides chapter: guides against a truth they do not know, and the surrogate ablation.

Every cell is ``median [low, high]`` (:func:`schedlab.render.table.fmt_interval`): the median trials to
within 5 % over the seeds and its bootstrap 95 % interval (:func:`schedlab.core.stats.trials_interval`);
``—`` where it is ``inf`` (half the seeds, or the resampled half, never got there in the budget).
"""

from __future__ import annotations

from schedlab.render.labels import SURROGATE_LABELS, TUNER_LABELS
from schedlab.render.table import Table, fmt_interval, fmt_percent, fmt_trials
from schedlab.render.tuner_tables import MISSING_NOTE
from schedlab.studies.guides import GuideStudy
from schedlab.tuning.surrogates import Ablation

__all__ = ["guide_table", "ablation_table"]


def _setting(x) -> str:
    return f"{len(x.seeds)} 个种子，预算 {x.budget} 次测量，测量噪声 {fmt_percent(x.noise, None)}"


def guide_table(study: GuideStudy, truths=None) -> Table:
    """One row per tuner, one column per truth: trials to within 5 % of the truth's optimum.

    Examples
    --------
    >>> from schedlab.studies.guides import field_truth, guide_study
    >>> g = guide_study((4096, 4096, 4096), [field_truth(0.0)], ["top-k model"], seeds=range(4))
    >>> guide_table(g).rows
    (('代价模型排序，测前 k 个', '1\\xa0[1,\\xa01]'),)
    """
    if not isinstance(study, GuideStudy):
        raise ValueError(f"study must be a schedlab.studies.guides.GuideStudy, got {type(study).__name__}")
    truths = study.truths if truths is None else tuple(truths)
    rows = tuple(
        (TUNER_LABELS[t],) + tuple(fmt_interval(study.cell(truth, t)) for truth in truths) for t in study.tuners
    )
    title = (
        f"{'×'.join(map(str, study.shape))}：测多少次，相信的最优才真的在真实最优的 5% 以内"
        f"（{_setting(study)}）。每格：中位数 [95% 自助区间]。{MISSING_NOTE}"
    )
    return Table(title, ("调优器",) + tuple(getattr(t, "name", t) for t in truths), rows)


def ablation_table(ablation: Ablation) -> Table:
    """One row per surrogate, one column per shape: model-guided search's trials to within 5 %.

    Examples
    --------
    >>> from schedlab.tuning.surrogates import ablation
    >>> t = ablation_table(ablation([(4096, 4096, 4096)], ["ours"], seeds=range(4)))
    >>> t.headers, t.rows[0][0]
    (('代理模型', '4096×4096×4096'), '本章的特征（含模型的量）')
    """
    if not isinstance(ablation, Ablation):
        raise ValueError(f"ablation must be a schedlab.tuning.surrogates.Ablation, got {type(ablation).__name__}")
    rows = tuple(
        (SURROGATE_LABELS[s],)
        + tuple(
            f"{fmt_interval(c)}\u00a0/\u00a0{fmt_trials(c.p90)}" for c in (ablation.cell(m, s) for m in ablation.shapes)
        )
        for s in ablation.surrogates
    )
    title = (
        f"代价模型引导换用不同的代理模型，测多少次到最优的 5% 以内（{_setting(ablation)}）。"
        "每格：中位数 [95% 自助区间] / 90% 分位数"
    )
    return Table(title, ("代理模型",) + tuple("×".join(map(str, m)) for m in ablation.shapes), rows)
