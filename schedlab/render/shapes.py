"""Tables of the shapes page (demo 3): each shape's optimum and the transfer matrix."""

from __future__ import annotations

from schedlab.render.labels import fmt_shape, shape_name, shape_short
from schedlab.render.table import Table, fmt_config, fmt_ratio, fmt_tflops, fmt_time
from schedlab.studies.shapes import Transfer

__all__ = ["optima_table", "transfer_table"]


# --- demo 3: shapes -----------------------------------------------------------------------


def optima_table(tr: Transfer) -> Table:
    """Each shape's optimum with its time and TFLOP/s.

    Examples
    --------
    >>> from schedlab.studies.shapes import transfer
    >>> t = optima_table(transfer())
    >>> t.headers
    ('形状', 'M×N×K', '最优配置', '时间', 'TFLOPS')
    >>> t.rows[3][:3]
    ('decode 批 16 × 4096² 的投影', '16×4096×4096', '(16, 16, 128, 1, 4, 1)')
    """
    rows = [
        (shape_name(s), fmt_shape(s), fmt_config(c), fmt_time(t), fmt_tflops(tf))
        for s, c, t, tf in zip(tr.shapes, tr.optima, tr.best_time_s, tr.best_tflops)
    ]
    return Table("每种形状各自的最优配置", ("形状", "M×N×K", "最优配置", "时间", "TFLOPS"), rows)


def transfer_table(tr: Transfer) -> Table:
    """Row ``i``'s optimum used on column ``j``'s shape, relative to column ``j``'s own best.

    Examples
    --------
    >>> from schedlab.studies.shapes import transfer
    >>> t = transfer_table(transfer())
    >>> t.headers
    ('最优配置来自 \\\\ 用在', '方阵 4096³', 'prefill 512', '小方阵 K=512', 'decode 16')
    >>> t.rows[0]
    ('方阵 4096³', '1.00', '1.00', '1.00', '3.37')
    """
    names = [shape_short(s) for s in tr.shapes]
    rows = [(name,) + tuple(fmt_ratio(r) for r in row) for name, row in zip(names, tr.matrix)]
    return Table(
        "把每一行形状的最优配置用在每一列的形状上（相对那一列自己的最优）", ("最优配置来自 \\ 用在", *names), rows
    )
