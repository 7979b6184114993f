"""Tables of the sensitivity page (demo 4): one knob at a time around a base configuration."""

from __future__ import annotations

from schedlab.core.knobs import SPACE
from schedlab.render.labels import KNOB_LABELS, fmt_shape
from schedlab.render.table import MISSING, Table, fmt_config, fmt_ratio, fmt_time
from schedlab.studies.sensitivity import Sensitivity

__all__ = ["sensitivity_table", "sensitivity_grid"]


# --- demo 4: one knob at a time -----------------------------------------------------------


def sensitivity_table(sens: Sensitivity) -> Table:
    """Time/base for each value of each knob, the others held at the base configuration.

    A cell is ``value:ratio``; ``—`` means the changed configuration cannot launch and
    ``*`` marks the base configuration's own value.

    Examples
    --------
    >>> from schedlab.studies.sensitivity import sensitivity
    >>> t = sensitivity_table(sensitivity((4096, 4096, 4096)))
    >>> t.rows[0]
    ('BLOCK_M', '16:—  32:—  64:2.52  128:1.48  256:1.00*')
    """
    base = dict(zip(SPACE, sens.base.as_tuple()))
    rows = []
    for knob, cells in sens.ratios.items():
        text = "  ".join(f"{v}:{fmt_ratio(r)}" + ("*" if v == base[knob] else "") for v, r in cells)
        rows.append((KNOB_LABELS.get(knob, knob), text))
    title = (
        f"{fmt_shape(sens.shape)}：在 {fmt_config(sens.base)}（{fmt_time(sens.base_time_s)}）附近一次只改一个参数；"
        f"每格是\u201c取值:相对的时间\u201d，{MISSING} 表示不能启动，* 是原配置的取值"
    )
    return Table(title, ("参数", "取值 : 时间比"), rows)


def sensitivity_grid(sens: Sensitivity) -> Table:
    """The one-knob sweep as a grid: a row per knob, a column per knob value (blank where a knob
    does not take that value), each cell the time over the base; ``*`` marks the base's own value.

    Examples
    --------
    >>> from schedlab.studies.sensitivity import sensitivity
    >>> t = sensitivity_grid(sensitivity((4096, 4096, 4096)))
    >>> t.headers[:6]
    ('参数', '1', '2', '3', '4', '5')
    >>> dict(zip(t.headers, t.rows[3]))["8"]
    '1.00*'
    """
    base = dict(zip(SPACE, sens.base.as_tuple()))
    values = sorted({v for cells in sens.ratios.values() for v, _ in cells})
    rows = []
    for knob, cells in sens.ratios.items():
        by_value = {v: fmt_ratio(r) + ("*" if v == base[knob] else "") for v, r in cells}
        rows.append((KNOB_LABELS.get(knob, knob),) + tuple(by_value.get(v, "") for v in values))
    title = (
        f"{fmt_shape(sens.shape)}：在 {fmt_config(sens.base)}（{fmt_time(sens.base_time_s)}）附近一次只改一个参数，"
        f"时间相对原配置；{MISSING} 表示不能启动，* 是原配置的取值，空格是这个参数没有的取值"
    )
    return Table(title, ("参数",) + tuple(str(v) for v in values), rows)
