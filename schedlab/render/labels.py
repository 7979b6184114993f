"""Names the lecture gives things: knobs, shapes, strategies, methods, covers.

One place for every label the tables (:mod:`schedlab.render`), the figures
(:mod:`schedlab.figures`) and the console share, so a knob or a strategy is named the
same way everywhere. Only :mod:`schedlab.core.knobs` and :mod:`schedlab.core.shapes` are
imported: the label of a search strategy or a cover is a string keyed by its name,
and needs nothing from the module that runs it.

Examples
--------
>>> KNOB_LABELS["bm"], KNOB_GLOSSES["bm"], CONFIG_HEADER
('BLOCK_M', '块的行数', '(BM, BN, BK, warps, stages, GROUP_M)')
>>> shape_short((16, 4096, 4096)), lecture_short((16, 4096, 4096)), lecture_name((16, 4096, 4096))
('16×4096×4096', 'decode 16', 'decode 16（16×4096×4096）')
"""

from __future__ import annotations

from types import MappingProxyType

from schedlab.core.hardware import Hardware, KiB
from schedlab.core.knobs import SPACE, TRITON_NAMES
from schedlab.core.shapes import LECTURE_SHAPES, LLAMA8B_PROJECTIONS, Shape, as_mnk

__all__ = [
    "launch_reason_label",
    "TERM_LABELS",
    "TIME_PART_LABELS",
    "KNOB_LABELS",
    "KNOB_GLOSSES",
    "KNOB_SHORT",
    "CONFIG_HEADER",
    "STRATEGY_LABELS",
    "METHOD_LABELS",
    "FEATURE_SET_LABELS",
    "SPLIT_LABELS",
    "MODEL_LABELS",
    "COVER_LABELS",
    "TUNER_LABELS",
    "SURROGATE_LABELS",
    "strategy_label",
    "cover_label",
    "SHAPE_LABELS",
    "fmt_shape",
    "shape_name",
    "shape_short",
    "lecture_short",
    "lecture_name",
]

# --- knobs ----------------------------------------------------------------------------------

#: Knob key of ``SPACE`` -> its label: the name a Triton user knows it by (:data:`~schedlab.core.knobs.TRITON_NAMES`).
KNOB_LABELS = TRITON_NAMES

#: Part of a predicted time (:data:`schedlab.studies.published.TIME_PARTS`) -> its name.
TIME_PART_LABELS = {
    "launch_s": "启动和序幕",
    "preamble_s": "主循环前的指令",
    "fill_epilogue_s": "填充和收尾",
    "steps_s": "k 步",
    "k_step_clocks_s": "每步开销",
    "overlap_loss_s": "流水线没藏住的",
}

#: Knob key of ``SPACE`` -> a short Chinese gloss (the figures' panel titles add it to the Triton name).
KNOB_GLOSSES = {
    "bm": "块的行数",
    "bn": "块的列数",
    "bk": "每步沿 K 读多少",
    "warps": "每块的 warp 数",
    "stages": "流水线级数",
    "group": "启动顺序分组",
}

#: Knob key of ``SPACE`` -> its short name in a configuration tuple's header.
KNOB_SHORT = dict(zip(SPACE, ("BM", "BN", "BK", "warps", "stages", "GROUP_M")))

#: Header of a column of configurations (:func:`schedlab.render.table.fmt_config`), knobs in ``SPACE`` order.
CONFIG_HEADER = "(" + ", ".join(KNOB_SHORT.values()) + ")"

# --- what the chapters compare --------------------------------------------------------------

#: Strategy name in :data:`schedlab.tuning.strategies.STRATEGIES` -> its name in the lecture.
STRATEGY_LABELS = {
    "exhaustive": "按列表穷举",
    "random": "随机搜索",
    "descent": "坐标下降",
    "annealing": "模拟退火",
    "evolutionary": "进化搜索",
    "model": "代价模型引导",
}

#: Method of :data:`schedlab.tuning.learned.METHODS` -> its name in the lecture.
METHOD_LABELS = {
    "model": "学到的代价模型",
    "fixed": "固定一个配置",
    "nearest": "最近形状的最优",
}

#: Feature set of :data:`schedlab.tuning.features.FEATURE_SETS` -> what it holds.
FEATURE_SET_LABELS = {
    "knobs": "只有旋钮和形状",
    "knobs+pairs": "旋钮、形状和它们的两两乘积",
    "tile": "旋钮、形状和块的算术",
}

#: Split of :data:`schedlab.tuning.learned.SPLITS` -> what one fold holds out.
SPLIT_LABELS = {
    "projection": "每次留出一整个投影 (N, K)",
    "tokens": "每次留出一个 token 数 M",
    "both": "每次留出一个形状，并去掉和它同投影或同 M 的训练形状",
}

#: Tuner -> its name in the lecture: the tuners of :data:`schedlab.studies.guides.TUNERS` and the
#: real tuners of :data:`schedlab.tuning.tuners.TUNERS`.
TUNER_LABELS = {
    "top-k model": "代价模型排序，测前 k 个",
    "top-k learned": "学到的模型排序，测前 k 个",
    "model-guided": STRATEGY_LABELS["model"],
    **{name: STRATEGY_LABELS[name] for name in ("random", "descent", "annealing", "evolutionary")},
    "kt_bayes_opt": "Kernel Tuner bayes_opt",
    "kt_diff_evo": "Kernel Tuner diff_evo",
    "kt_simulated_annealing": "Kernel Tuner simulated_annealing",
    "kt_genetic_algorithm": "Kernel Tuner genetic_algorithm",
    "kt_greedy_ils": "Kernel Tuner greedy_ils",
    "kt_random_sample": "Kernel Tuner random_sample",
    "optuna_tpe": "Optuna TPE",
    "optuna_cmaes": "Optuna CMA-ES",
    "model-own-start": "代价模型引导（它自己的起点数）",
}

#: Surrogate of :data:`schedlab.tuning.features.SURROGATES` -> what it holds.
SURROGATE_LABELS = {
    "linear": "线性：6 个对数旋钮",
    "quadratic": "二次：对数旋钮及两两乘积",
    "one-hot": "独热：每个旋钮取值一个指示",
    "ours": "本章的特征（含模型的量）",
}

#: Regression of :data:`schedlab.tuning.regression.MODELS` -> its name in the lecture.
MODEL_LABELS = {
    "ridge": "岭回归",
    "boosted": "梯度提升树",
}

#: :attr:`schedlab.tuning.covers.Cover.method` -> its name in the lecture.
COVER_LABELS = {
    "greedy": "集合覆盖（贪心）",
    "exact": "集合覆盖（最少）",
    "intervals": "连续区间",
    "power-of-two": "2 的幂，向下取",
    "power-of-two-up": "2 的幂，向上取",
}


#: The model's per-k-step terms (:data:`schedlab.core.model.terms.TERMS`), as the tables, figures and console name them.
TERM_LABELS = MappingProxyType(
    {
        "t_tc_s": "Tensor Core 计算",
        "t_smem_s": "共享内存读",
        "t_port_s": "SM↔L2 端口",
        "t_l2_s": "L2 带宽",
        "t_hbm_s": "HBM 带宽",
        "t_latency_s": "延迟（Little 定律）",
    }
)


def strategy_label(name: str) -> str:
    """A strategy's or a tuner's name in the lecture; one without a label keeps its own name.

    Examples
    --------
    >>> strategy_label("model"), strategy_label("optuna_tpe"), strategy_label("mine")
    ('代价模型引导', 'Optuna TPE', 'mine')
    """
    return STRATEGY_LABELS.get(name) or TUNER_LABELS.get(name, name)


def cover_label(method: str) -> str:
    """A cover method's name in the lecture; a method without one keeps its own name.

    Examples
    --------
    >>> cover_label("power-of-two"), cover_label("mine")
    ('2 的幂，向下取', 'mine')
    """
    return COVER_LABELS.get(method, method)


# --- shapes ---------------------------------------------------------------------------------


def fmt_shape(shape) -> str:
    """``M×N×K`` of a :class:`~schedlab.core.shapes.Shape` or an ``(M, N, K)`` tuple.

    Examples
    --------
    >>> fmt_shape((512, 14336, 4096))
    '512×14336×4096'
    """
    return "×".join(map(str, as_mnk(shape)))


#: :attr:`~schedlab.core.shapes.Shape.key` of a named shape -> (its long Chinese description, its
#: short name for column headers): the lecture's four shapes and :data:`schedlab.studies.landscapes.MID_BOX_SHAPES`.
SHAPE_LABELS = MappingProxyType(
    {
        "square": ("方阵 4096³（大 GEMM）", "方阵 4096³"),
        "prefill512": ("prefill 512 个 token × Llama-8B 的 up 投影", "prefill 512"),
        "small-k": ("小的方阵（K 短）", "小方阵 K=512"),
        "decode16": ("decode 批 16 × 4096² 的投影", "decode 16"),
        **{f"mid{M}": (f"批 {M} × 4096² 的投影（最优在旋钮盒子中间）", f"批 {M}") for M in (96, 128, 256)},
    }
)

_PROJECTIONS = frozenset(name for name, _, _ in LLAMA8B_PROJECTIONS)


def _shape_labels(shape: Shape) -> tuple[str, str]:
    """(long name, short name) of a :class:`~schedlab.core.shapes.Shape` from its key.

    A Llama-3-8B projection's key is its name (the phase and ``M`` join it); a key without a
    label names the shape itself, and an empty one leaves ``M×N×K``.
    """
    if shape.key in SHAPE_LABELS:
        return SHAPE_LABELS[shape.key]
    if shape.key in _PROJECTIONS:
        phase = "decode 批" if shape.M <= 64 else "prefill"
        return f"{phase} {shape.M} × Llama-8B 的 {shape.key} 投影", f"{shape.key} M={shape.M}"
    own = shape.key or fmt_shape(shape)
    return own, own


def shape_name(shape) -> str:
    """The long Chinese description of a :class:`~schedlab.core.shapes.Shape`, else ``M×N×K``.

    Examples
    --------
    >>> from schedlab.core.shapes import llm_shapes
    >>> shape_name(LECTURE_SHAPES[3]), shape_name(llm_shapes()[0]), shape_name((8, 8, 8))
    ('decode 批 16 × 4096² 的投影', 'decode 批 1 × Llama-8B 的 QKV 投影', '8×8×8')
    >>> shape_name(Shape(8, 8, 8, "mine"))
    'mine'
    """
    return _shape_labels(shape)[0] if isinstance(shape, Shape) else fmt_shape(shape)


def shape_short(shape) -> str:
    """The short name of a :class:`~schedlab.core.shapes.Shape` (for column headers), else ``M×N×K``.

    A tuple stays ``M×N×K`` even when it is a lecture shape's (see :func:`lecture_short`).

    Examples
    --------
    >>> from schedlab.core.shapes import llm_shapes
    >>> [shape_short(s) for s in LECTURE_SHAPES]
    ['方阵 4096³', 'prefill 512', '小方阵 K=512', 'decode 16']
    >>> shape_short(llm_shapes()[-2]), shape_short((4096, 4096, 4096))
    ('gate/up M=4096', '4096×4096×4096')
    """
    return _shape_labels(shape)[1] if isinstance(shape, Shape) else fmt_shape(shape)


def _lecture_shape(shape) -> Shape | None:
    """The lecture's :class:`~schedlab.core.shapes.Shape` with the same ``(M, N, K)``, if there is one."""
    mnk = as_mnk(shape)
    return next((s for s in LECTURE_SHAPES if s.mnk == mnk), None)


def lecture_short(shape) -> str:
    """The lecture's short name of a shape with the ``(M, N, K)`` of a lecture shape, else ``M×N×K``.

    Examples
    --------
    >>> lecture_short((4096, 4096, 4096)), lecture_short((8, 8, 8))
    ('方阵 4096³', '8×8×8')
    """
    known = _lecture_shape(shape)
    return fmt_shape(shape) if known is None else shape_short(known)


def lecture_name(shape) -> str:
    """``M×N×K``, after the lecture's short name when the shape is one of the lecture's.

    Examples
    --------
    >>> lecture_name((512, 14336, 4096)), lecture_name((8, 8, 8))
    ('prefill 512（512×14336×4096）', '8×8×8')
    """
    dims, known = fmt_shape(shape), _lecture_shape(shape)
    return dims if known is None else f"{shape_short(known)}（{dims}）"


def launch_reason_label(reason, hw: Hardware) -> str:
    """The lecture's wording of a :class:`~schedlab.core.launch.Reason` on ``hw`` (its limit named).

    Examples
    --------
    >>> from schedlab.core.hardware import A100_SXM4, H100_TC
    >>> from schedlab.core.knobs import GemmConfig
    >>> from schedlab.core.launch import reasons
    >>> [launch_reason_label(r, H100_TC) for r in reasons(GemmConfig(256, 256, 128, 8, 5, 1), H100_TC)]
    ['共享内存超过 227 KiB', '每线程寄存器超过 255']
    >>> [launch_reason_label(r, A100_SXM4) for r in reasons(GemmConfig(256, 256, 128, 8, 5, 1), A100_SXM4)]
    ['共享内存（Triton 的流水线缓冲）超过 163 KiB']
    """
    buffers = "" if hw.launch_rules == "seed" else "（Triton 的流水线缓冲）"
    return {
        "smem": f"共享内存{buffers}超过 {hw.smem_limit // KiB} KiB",
        "mma": f"warp 的块小于一条 mma（{hw.mma_m}×{hw.mma_n}）",
        "registers": f"每线程寄存器超过 {hw.max_regs_per_thread}",
        "occupancy": "一个块要的寄存器、线程或共享内存超过一个 SM 所有",
    }[reason.code]
