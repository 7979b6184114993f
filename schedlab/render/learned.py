"""Tables of the learned cost model (:mod:`schedlab.tuning.learned`): regrets and hit rates per method."""

from __future__ import annotations

from schedlab.core.checks import check_real, is_integer
from schedlab.render.labels import FEATURE_SET_LABELS, METHOD_LABELS, MODEL_LABELS, SPLIT_LABELS, shape_short
from schedlab.render.table import MISSING, Table, fmt_percent, fmt_ratio
from schedlab.tuning.features import FEATURE_SETS
from schedlab.tuning.learned import METHODS, TOP_K, CrossValidation

__all__ = ["regret_table", "hit_rate_table", "feature_set_table", "model_table"]


def _check_cv(cv) -> CrossValidation:
    if not isinstance(cv, CrossValidation):
        raise ValueError(f"cv must be a schedlab.tuning.learned.CrossValidation, got {type(cv).__name__}")
    return cv


def _check_k(k) -> int:
    if not is_integer(k) or k not in TOP_K:
        raise ValueError(f"k must be one of {TOP_K}, got {k!r}")
    return k


def _pick_words(k: int) -> str:
    return "第一选择" if k == 1 else f"前 {k} 个选择里最好的一个"


def regret_table(cv: CrossValidation, k: int = 1) -> Table:
    """Per method: geometric mean and worst regret over the held-out shapes, and where the worst is.

    A regret is the true time of the method's choice (the best of its first ``k``) over the
    held-out shape's optimum (:meth:`CrossValidation.regrets`); ``1.000`` is a perfect pick.

    Examples
    --------
    >>> from schedlab.tuning.learned import cross_validate
    >>> t = regret_table(cross_validate("tokens"))
    >>> t.headers
    ('做法', '几何平均', '最坏', '最坏的形状')
    >>> t.column("做法")
    ('学到的代价模型', '固定一个配置', '最近形状的最优')
    >>> t.rows[0][1]
    '1.000'
    """
    cv, k = _check_cv(cv), _check_k(k)
    rows = []
    for method in METHODS:
        regrets = cv.regrets(method, k)
        worst = int(regrets.argmax())
        where = shape_short(cv.results[worst].given) if regrets[worst] > 1.0 else MISSING
        rows.append(
            (
                METHOD_LABELS[method],
                fmt_ratio(cv.geomean_regret(method, k), 3),
                fmt_ratio(cv.worst_regret(method, k), 3),
                where,
            )
        )
    title = (
        f"{SPLIT_LABELS.get(cv.split, cv.split)}，{len(cv.results)} 个留出形状上{_pick_words(k)}的时间 / "
        f"该形状的最优（{FEATURE_SET_LABELS.get(cv.feature_set, cv.feature_set)}）"
    )
    return Table(title, ("做法", "几何平均", "最坏", "最坏的形状"), rows)


def hit_rate_table(cv: CrossValidation, tol: float = 0.05) -> Table:
    """Per method and ``k`` in :data:`~schedlab.tuning.learned.TOP_K`: the share of held-out shapes whose
    first ``k`` picks hold one within ``tol`` of the optimum (:meth:`CrossValidation.hit_rate`).

    Examples
    --------
    >>> from schedlab.tuning.learned import cross_validate
    >>> t = hit_rate_table(cross_validate("tokens"))
    >>> t.headers
    ('做法', '前 1 个', '前 5 个', '前 10 个')
    >>> t.rows[0]
    ('学到的代价模型', '100%', '100%', '100%')
    """
    cv = _check_cv(cv)
    tol = check_real(tol, "tol")
    rows = [(METHOD_LABELS[m],) + tuple(fmt_percent(cv.hit_rate(m, k, tol)) for k in TOP_K) for m in METHODS]
    title = (
        f"{len(cv.results)} 个留出形状里，前 k 个选择中至少有一个在最优的 {fmt_percent(tol, None)} 以内的比例"
        f"（{SPLIT_LABELS.get(cv.split, cv.split)}）"
    )
    return Table(title, ("做法",) + tuple(f"前 {k} 个" for k in TOP_K), rows)


def feature_set_table(cvs, tol: float = 0.05) -> Table:
    """The learned model with different features, one row per cross-validation (same split).

    Columns: the features, how many, the RMSE of predicted ``log(time)`` over every
    configuration of every held-out shape, the first pick's geometric-mean and worst regret,
    and the share of held-out shapes where the first pick is within ``tol``.

    Examples
    --------
    >>> from schedlab.tuning.learned import cross_validate
    >>> t = feature_set_table([cross_validate("tokens", "knobs")])
    >>> t.headers
    ('特征', '个数', '留出形状上 log 时间的 RMSE', '几何平均', '最坏', '第一选择在 5% 以内')
    >>> t.rows[0][:2]
    ('只有旋钮和形状', '10')
    """
    records = tuple(_check_cv(cv) for cv in cvs)
    if not records:
        raise ValueError("feature_set_table needs at least one cross-validation")
    tol = check_real(tol, "tol")
    rows = []
    for cv in records:
        rows.append(
            (
                FEATURE_SET_LABELS.get(cv.feature_set, cv.feature_set),
                str(len(FEATURE_SETS[cv.feature_set])),
                f"{cv.pooled_log_rmse:.2f}",
                fmt_ratio(cv.geomean_regret("model"), 3),
                fmt_ratio(cv.worst_regret("model"), 3),
                fmt_percent(cv.hit_rate("model", 1, tol)),
            )
        )
    splits = {cv.split for cv in records}
    title = (
        f"同一个岭回归，换一套特征（{SPLIT_LABELS.get(records[0].split, records[0].split)}）"
        if len(splits) == 1
        else "同一个岭回归，换一套特征"
    )
    return Table(
        title,
        ("特征", "个数", "留出形状上 log 时间的 RMSE", "几何平均", "最坏", f"第一选择在 {fmt_percent(tol, None)} 以内"),
        rows,
    )


def model_table(cvs, tol: float = 0.05) -> Table:
    """The first pick's regret per regression and feature set (rows) and split (column groups).

    Each cross-validation is one cell group: the geometric-mean and worst regret of the
    model's first pick, and the share of held-out shapes where it is within ``tol``. A row
    is a (regression, feature set) pair; a column group a split, in the order first given.

    Examples
    --------
    >>> from schedlab.tuning.learned import cross_validate
    >>> t = model_table([cross_validate("tokens", "knobs"), cross_validate("projection", "knobs")])
    >>> t.headers[:3], t.rows[0][:2]
    (('模型', '特征', '留出 M：几何平均'), ('岭回归', '只有旋钮和形状'))
    """
    records = tuple(_check_cv(cv) for cv in cvs)
    if not records:
        raise ValueError("model_table needs at least one cross-validation")
    tol = check_real(tol, "tol")
    splits = tuple(dict.fromkeys(cv.split for cv in records))
    pairs = tuple(dict.fromkeys((cv.model, cv.feature_set) for cv in records))
    cell = {(cv.split, cv.model, cv.feature_set): cv for cv in records}
    if len(cell) != len(records):
        raise ValueError("model_table needs one cross-validation per (split, model, feature set)")
    short = {"projection": "留出投影", "tokens": "留出 M", "both": "两者都留出"}
    rows = []
    for model, feature_set in pairs:
        row = [MODEL_LABELS.get(model, model), FEATURE_SET_LABELS.get(feature_set, feature_set)]
        for split in splits:
            cv = cell.get((split, model, feature_set))
            row += (
                [MISSING] * 3
                if cv is None
                else [
                    fmt_ratio(cv.geomean_regret("model"), 3),
                    fmt_ratio(cv.worst_regret("model"), 3),
                    fmt_percent(cv.hit_rate("model", 1, tol)),
                ]
            )
        rows.append(tuple(row))
    headers = ("模型", "特征") + tuple(
        f"{short[s]}：{h}" for s in splits for h in ("几何平均", "最坏", f"{fmt_percent(tol, None)} 以内")
    )
    title = "换模型还是换特征：第一选择的时间 / 最优，" + "；".join(SPLIT_LABELS[s] for s in splits)
    return Table(title, headers, tuple(rows))
