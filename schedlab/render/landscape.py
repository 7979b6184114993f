"""Tables of the landscape page (demo 2): the fastest configurations, their ties and the quantiles."""

from __future__ import annotations

from schedlab.core.landscape import Landscape, TieGroup
from schedlab.render.labels import CONFIG_HEADER, KNOB_SHORT, fmt_shape
from schedlab.render.table import MISSING, Table, fmt_config, fmt_ratio, fmt_tflops, fmt_time

__all__ = ["fmt_ties", "top_table", "quantiles_table"]


# --- demo 2: the landscape ----------------------------------------------------------------


def fmt_ties(group: TieGroup) -> str:
    """The configurations tied in one group: how many, and the knob values they take.

    ``"—"`` for a group of one. Knobs that combine freely get one ``∈ {…}`` each; knobs tied only
    in some combinations are listed together as value tuples.

    Examples
    --------
    >>> from schedlab.core.landscape import landscape
    >>> fmt_ties(landscape((4096, 4096, 4096)).tie_groups(1)[0])
    '15 个：(BK, stages) ∈ {(32, 4), (32, 5), (64, 3), (64, 4), (128, 2)}；GROUP_M ∈ {1, 4, 8}'
    """
    if len(group.configs) == 1:
        return MISSING
    parts = []
    for knobs, values in group.varying():
        if len(knobs) == 1:
            parts.append(f"{KNOB_SHORT[knobs[0]]} ∈ {{{', '.join(str(v[0]) for v in values)}}}")
        else:
            names = ", ".join(KNOB_SHORT[k] for k in knobs)
            parts.append(f"({names}) ∈ {{{', '.join(str(v) for v in values)}}}")
    return f"{len(group.configs)} 个：" + "；".join(parts)


def top_table(land: Landscape, k: int = 6) -> Table:
    """The ``k`` fastest distinct times of a landscape, one row per group of exact ties.

    A row names the group's first configuration in ``SPACE`` order (the one ``argmin`` picks)
    and, in 并列, every other configuration with the same model time (:func:`fmt_ties`).

    Examples
    --------
    >>> from schedlab.core.landscape import landscape
    >>> t = top_table(landscape((16, 4096, 4096)), k=1)
    >>> t.title
    '16×4096×4096 上最快的 1 个时间（共 3744 个能启动的配置；同一时间的并列配置合成一行）'
    >>> t.rows[0][0], t.rows[0][2:]
    ('(16, 16, 128, 1, 4, 1)', ('10.9 µs', '49', '1.000'))
    """
    groups = land.tie_groups(k)
    rows = [
        (fmt_config(g.first), fmt_ties(g), fmt_time(g.time_s), fmt_tflops(g.tflops), fmt_ratio(g.ratio, 3))
        for g in groups
    ]
    title = (
        f"{fmt_shape(land.shape)} 上最快的 {len(rows)} 个时间（共 {len(land.configs)} 个能启动的配置；"
        "同一时间的并列配置合成一行）"
    )
    return Table(title, (CONFIG_HEADER, "并列", "时间", "TFLOPS", "相对最快"), rows)


def quantiles_table(land: Landscape) -> Table:
    """Percentiles of time/best over a landscape's launchable configurations.

    Examples
    --------
    >>> from schedlab.core.landscape import landscape
    >>> quantiles_table(landscape((4096, 4096, 4096))).headers
    ('分位数', '10%', '25%', '50%', '75%', '90%')
    """
    q = land.quantiles()
    return Table(
        f"{fmt_shape(land.shape)}：时间 / 最快 的分位数",
        ("分位数",) + tuple(f"{p}%" for p in q),
        [("相对最快",) + tuple(fmt_ratio(v) for v in q.values())],
    )
