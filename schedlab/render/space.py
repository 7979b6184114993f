"""Tables of the space page (demo 1): the knobs and the pruning reasons."""

from __future__ import annotations

from schedlab.core.knobs import SPACE
from schedlab.render.labels import KNOB_LABELS, launch_reason_label
from schedlab.render.table import Table
from schedlab.studies.space import SpaceSummary

__all__ = ["knob_table", "reasons_table"]


# --- demo 1: the space --------------------------------------------------------------------

_KNOB_ROWS = (  # (label, knobs, meaning, what it corresponds to in the course)
    ("BLOCK_M × BLOCK_N", ("bm", "bn"), "每个程序实例（线程块）算 C 的多大一块", "第 10 讲 §6、§8"),
    ("BLOCK_K", ("bk",), "每一步沿 K 读多少", "共享内存、流水线每级的大小"),
    ("num_warps", ("warps",), "每个块几个 warp（warp 排成网格，各算一个子块）", "warp 分块、Tensor Core 的利用"),
    ("num_stages", ("stages",), "共享内存里几级流水线", "第 10 讲 §8.4 的 Little 定律"),
    ("GROUP_M", ("group",), "块的启动顺序（L2 分组）", "第 10 讲 §10.2"),
)


def _values(knob: str) -> str:
    return " / ".join(map(str, SPACE[knob]))


def knob_table() -> Table:
    """The knobs of a Triton-style matmul kernel and their values (read from ``SPACE``).

    Examples
    --------
    >>> t = knob_table()
    >>> t.headers
    ('参数', '含义', '取值', '对应')
    >>> t.rows[0][2]
    '16 / 32 / 64 / 128 / 256（两维各取）'
    >>> t.column("取值")[3]
    '1 / 2 / 3 / 4 / 5'
    """
    rows = []
    for label, knobs, meaning, where in _KNOB_ROWS:
        if len(knobs) == 1:
            values = _values(knobs[0])
        elif all(SPACE[k] == SPACE[knobs[0]] for k in knobs):
            values = _values(knobs[0]) + "（两维各取）"
        else:
            values = "；".join(f"{KNOB_LABELS[k]}: {_values(k)}" for k in knobs)
        rows.append((label, meaning, values, where))
    return Table("调度的旋钮（Triton 的元参数）", ("参数", "含义", "取值", "对应"), rows)


def reasons_table(summary: SpaceSummary) -> Table:
    """Why configurations cannot launch, most frequent reason first.

    Examples
    --------
    >>> from schedlab.studies.space import space_summary
    >>> reasons_table(space_summary()).rows[0]
    ('每线程寄存器超过 255', '1200')
    """
    rows = [(launch_reason_label(reason, summary.hw), str(n)) for reason, n in summary.reason_counts]
    return Table("不能启动的原因（一个配置可能有几个）", ("原因", "配置数"), rows)
