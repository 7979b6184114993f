"""Tables of shape buckets (:mod:`schedlab.studies.buckets`): how many configurations cover a range of ``M``."""

from __future__ import annotations

from schedlab.render.labels import CONFIG_HEADER, COVER_LABELS, cover_label
from schedlab.render.table import Table, fmt_config, fmt_percent, fmt_ratio
from schedlab.studies.buckets import BucketStudy
from schedlab.tuning.covers import Cover

__all__ = ["fmt_m_range", "bucket_table", "cover_table"]


def fmt_m_range(first: int, last: int) -> str:
    """``"17"`` or ``"17–32"``: a run of grid token counts.

    Examples
    --------
    >>> fmt_m_range(17, 17), fmt_m_range(1, 16)
    ('17', '1–16')
    """
    return str(first) if first == last else f"{first}–{last}"


def _check_cover(cover) -> Cover:
    if not isinstance(cover, Cover):
        raise ValueError(f"cover must be a schedlab.tuning.covers.Cover, got {type(cover).__name__}")
    return cover


def _cover_label(study: BucketStudy) -> str:
    if study.greedy_optimal is None:
        return "集合覆盖（贪心；精确搜索放弃）"
    if study.greedy_optimal:
        return "集合覆盖（贪心 = 最少）"
    return f"集合覆盖（贪心；最少 {study.exact.n_configs} 个）"


def bucket_table(studies) -> Table:
    """Per projection: how many configurations keep every ``M`` within tolerance, against power-of-two buckets.

    Three rows per :class:`~schedlab.studies.buckets.BucketStudy`: the greedy set cover (marked
    where :func:`~schedlab.tuning.covers.exact_cover` proves it minimal), power-of-two bucketing
    rounding ``M`` down and rounding it up. Columns: distinct configurations, the worst and
    the mean slowdown (time / that ``M``'s optimum) over the grid, and whether every ``M``
    stays within tolerance. A study whose ``power_of_two_up`` is ``None`` has no up row.

    Examples
    --------
    >>> from schedlab.studies.buckets import bucket_study
    >>> t = bucket_table(bucket_study([("O", 4096, 4096)], Ms=(1, 16, 17, 32, 33, 64)))
    >>> t.headers
    ('投影', 'N×K', '做法', '配置数', '最坏', '平均', '每个 M 都在 5% 以内')
    >>> t.rows[0][2:]
    ('集合覆盖（贪心 = 最少）', '1', '1.000', '1.000', '✓')
    >>> t.rows[1][2:]  # M = 17 and 33 reuse the optimum of 16 and 32
    ('2 的幂，向下取', '3', '1.221', '1.054', '✗')
    """
    records = tuple(studies)
    for s in records:
        if not isinstance(s, BucketStudy):
            raise ValueError(f"studies must hold schedlab.studies.buckets.BucketStudy, got {type(s).__name__}")
    if not records:
        raise ValueError("bucket_table needs at least one study")
    tol = records[0].greedy.tol
    rows = []
    for s in records:
        covers = [(_cover_label(s), s.greedy), (COVER_LABELS[s.power_of_two.method], s.power_of_two)]
        if s.power_of_two_up is not None:
            covers.append((COVER_LABELS[s.power_of_two_up.method], s.power_of_two_up))
        for label, c in covers:
            rows.append(
                (
                    s.name,
                    f"{s.sweep.N}×{s.sweep.K}",
                    label,
                    str(c.n_configs),
                    fmt_ratio(c.worst, 3),
                    fmt_ratio(c.mean, 3),
                    "✓" if c.keeps_all else "✗",
                )
            )
    Ms = records[0].sweep.Ms
    title = (
        f"M = {Ms[0]} … {Ms[-1]} 的 {len(Ms)} 个 M 上：每个 M 都要在自己最优的 {fmt_percent(tol, None)} 以内，"
        "要几个配置；和按 2 的幂分桶比（时间 / 该 M 的最优）"
    )
    return Table(
        title, ("投影", "N×K", "做法", "配置数", "最坏", "平均", f"每个 M 都在 {fmt_percent(tol, None)} 以内"), rows
    )


def cover_table(cover: Cover) -> Table:
    """A cover as a lookup table: each run of grid ``M`` (:attr:`Cover.buckets`), its configuration,
    and the worst slowdown over the run.

    Examples
    --------
    >>> from schedlab.tuning.covers import greedy_cover, sweep
    >>> t = cover_table(greedy_cover(sweep(4096, 4096, Ms=(1, 16, 17, 32, 33, 64, 65, 128))))
    >>> t.headers
    ('M', '(BM, BN, BK, warps, stages, GROUP_M)', '最坏（时间 / 该 M 的最优）')
    >>> t.rows  # doctest: +NORMALIZE_WHITESPACE
    (('1', '(64, 64, 128, 2, 4, 1)', '1.000'), ('16–65', '(128, 32, 128, 2, 4, 1)', '1.000'),
     ('128', '(64, 64, 128, 2, 4, 1)', '1.000'))
    """
    cover = _check_cover(cover)
    rows, i = [], 0
    for first, last, cfg in cover.buckets:
        j = cover.Ms.index(last) + 1
        rows.append((fmt_m_range(first, last), fmt_config(cfg), fmt_ratio(float(cover.slowdown[i:j].max()), 3)))
        i = j
    title = f"{cover_label(cover.method)}：{cover.n_configs} 个配置，按 M 查表（网格上 {len(cover.Ms)} 个 M）"
    return Table(title, ("M", CONFIG_HEADER, "最坏（时间 / 该 M 的最优）"), rows)
