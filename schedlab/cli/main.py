"""``python -m schedlab``: the lecture's four demos on the console, and the tools beside them.

::

    python -m schedlab                 # the four demos (same as `demos`)
    python -m schedlab demos 1 3       # only demos 1 and 3
    python -m schedlab top 512 14336 4096 -n 10
    python -m schedlab explain 256 128 32 8 4 1  4096 4096 4096
    python -m schedlab search 4096 4096 4096 --strategy random model --seeds 100
    python -m schedlab buckets 4096 4096 --M-max 512 --tol 0.05
    python -m schedlab top 4096 4096 4096 --gpu a100-sxm4   # any subcommand on another GPU
    python -m schedlab gpus --sources --gpu h100-sxm         # the GPU profiles, and one's sources
    python -m schedlab export 4096 4096 4096 -o cache.json     # a Kernel Tuner cache file
    python -m schedlab tuners 4096 4096 4096 --seeds 50       # record the real tuners' runs
    python -m schedlab measured CACHE.json.gz -o schedlab/data/measured   # a real measured landscape

This module holds the command line: the table of subcommands (:data:`COMMANDS`), argparse, the
machine chosen with ``--gpu``, and how a run ends (pipes, Ctrl-C, unwritable output). Each
subcommand lives in its own module, imported only when it is the one given, so ``--help`` and a
usage error import no numerical library: :mod:`schedlab.cli.tools` (demos, top, explain, search,
gpus; the demos themselves are :mod:`schedlab.cli.demos`), :mod:`schedlab.cli.buckets`,
:mod:`schedlab.cli.tuners`, :mod:`schedlab.cli.prune` and :mod:`schedlab.cli.measured`. Every number printed comes from :mod:`schedlab.studies` /
:mod:`schedlab.core.model` and is formatted by :mod:`schedlab.render`; the observations are
sentences built around those numbers, never numbers typed into the text.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
from importlib import import_module

from schedlab.core.hardware import DEFAULT_PROFILE, PROFILES, profile

__all__ = ["COMMANDS", "main", "build_parser"]

#: Subcommand -> (its line in ``--help``, the module that holds it). The module has
#: ``<name>_arguments(parser)`` and ``cmd_<name>(args)`` (``-`` in the name written ``_``).
COMMANDS = {
    "demos": ("讲义的四个演示 / the lecture's demos", "schedlab.cli.tools"),
    "top": ("某个形状上最快的配置 / fastest configs for a shape", "schedlab.cli.tools"),
    "explain": ("一个配置的时间花在哪里 / where one config's time goes", "schedlab.cli.tools"),
    "search": ("比较搜索策略：测多少次才到最优的 5%% 以内 / compare tuning strategies", "schedlab.cli.tools"),
    "buckets": ("decode 的各个 M 要几个配置，和按 2 的幂分桶比 / bucket covers over M", "schedlab.cli.buckets"),
    "export": (
        "把一个形状的地形写成 Kernel Tuner 缓存文件 / a landscape as a Kernel Tuner cache",
        "schedlab.cli.tuners",
    ),
    "tuners": ("记录真实调优器在一个形状上的运行 / record real tuners' runs", "schedlab.cli.tuners"),
    "prune": ("把 Triton 的配置列表剪到值得测的几个 / prune a Triton config list with the model", "schedlab.cli.prune"),
    "measured": ("读真机测出的地形（Kernel Tuner 缓存文件）/ real measured landscapes", "schedlab.cli.measured"),
    "measured-tuners": (
        "记录真实调优器在真机地形上的运行 / record real tuners on measured landscapes",
        "schedlab.cli.measured",
    ),
    "gpus": ("模型里的几块 GPU 和它们的主要参数 / the GPU profiles", "schedlab.cli.tools"),
}


def _command_module(name: str):
    return import_module(COMMANDS[name][1])


def _stem(name: str) -> str:
    return name.replace("-", "_")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line: every subcommand's name and help line, and the arguments of ``command`` alone (its module imported).

    With ``command=None`` no subcommand's module is imported: enough for ``--help`` and for ``python -m schedlab``
    (all four demos, no arguments of their own).
    """
    parser = argparse.ArgumentParser(
        prog="schedlab",
        description="GPU 矩阵乘法内核的调度空间（H100 解析模型，第 13 讲）。不带子命令时运行全部四个演示。"
        " / The schedule space of a GPU matmul kernel on an analytical H100 model.",
    )
    sub = parser.add_subparsers(title="子命令 / subcommands", dest="command")
    parser.set_defaults(which=None, command="demos")  # no subcommand: all four demos
    for name, (line, _) in COMMANDS.items():
        p = sub.add_parser(name, help=line)
        if name == command:
            getattr(_command_module(name), f"{_stem(name)}_arguments")(p)

    # --gpu before the subcommand or after it, each collected in its own list (a subparser fills a namespace
    # of its own); main() refuses more than one in all
    _add_gpu_option(parser, "gpu")
    for sub_parser in sub.choices.values():
        _add_gpu_option(sub_parser, "sub_gpu")
    return parser


def _given_command(argv: list[str]) -> str | None:
    """The subcommand ``argv`` names (its first word that is not an option or ``--gpu``'s value), or None."""
    words = iter(argv)
    for word in words:
        if word == "--gpu":
            next(words, None)
        elif not word.startswith("-"):
            return word if word in COMMANDS else None  # argparse says what is wrong with it
    return None


def _add_gpu_option(parser: argparse.ArgumentParser, dest: str) -> None:
    """``--gpu NAME``: the machine every number is computed on (checked in :func:`main`, one line if unknown).

    Every ``--gpu`` given is appended to ``dest``; :func:`_chosen_gpu` takes the one allowed.
    """
    parser.add_argument(
        "--gpu",
        dest=dest,
        action="append",
        metavar="NAME",
        help=f"用哪块 GPU 的参数（默认 {DEFAULT_PROFILE}；可选 {', '.join(PROFILES)}）"
        " / GPU profile (see `schedlab gpus`)",
    )


def _tolerant_streams() -> None:
    """Never die on a console that cannot encode Chinese: replace what it cannot show."""
    for stream in (sys.stdout, sys.stderr):
        enc = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
        if enc != "utf8" and hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="replace")


def _chosen_gpu(parser: argparse.ArgumentParser, args) -> str:
    """The one ``--gpu`` of the command line, before or after the subcommand, or the default; a usage error if repeated."""
    given = [*(args.gpu or ()), *(getattr(args, "sub_gpu", None) or ())]
    if len(given) > 1:
        parser.error(f"--gpu 只能给一次 / --gpu given more than once: {' '.join(given)}")
    return given[0] if given else DEFAULT_PROFILE


def main(argv=None) -> int:
    """Entry point of ``python -m schedlab`` and the ``schedlab`` script; returns the exit status."""
    _tolerant_streams()
    argv = sys.argv[1:] if argv is None else list(argv)
    command = _given_command(argv)
    label = f"schedlab {command}" if command else "schedlab"  # a Ctrl-C while its module imports names it
    try:
        parser = build_parser(command)
        try:
            args = parser.parse_args(argv)
            args.gpu = _chosen_gpu(parser, args)
        except SystemExit:  # --help or a usage error: its text is written now, not at interpreter exit
            _flush_streams()
            raise
        label = f"schedlab {args.command}"
        args.hw = profile(args.gpu)  # the one place a name becomes a machine; ValueError naming the known GPUs
        status = getattr(_command_module(args.command), f"cmd_{_stem(args.command)}")(args)
        _flush_streams()  # a write error surfaces here, not at interpreter exit
        return status
    except ValueError as err:
        print(f"{label}: 错误 / error: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `python -m schedlab | head`: the reader has all it wanted
        _discard(sys.stdout)  # the idiom of the signal module's "Note on SIGPIPE"
        return 0
    except KeyboardInterrupt:  # Ctrl-C: one line, the shell's status for SIGINT
        print(f"\n{label}: 已中断 / interrupted", file=sys.stderr)
        return 130
    except OSError as err:  # e.g. `> /dev/full`, or a full disk under an output file: it could not be written
        _discard(sys.stdout)
        what = f"{err.filename}: {err.strerror}" if err.filename else err.strerror or err
        print(f"{label}: 错误 / error: 无法写出 / cannot write output: {what}", file=sys.stderr)
        return 1


def _flush_streams() -> None:
    """Write out what stdout holds (an OSError if it cannot); what stderr cannot take is dropped: nowhere to say so."""
    if sys.stderr is not None:
        try:
            sys.stderr.flush()
        except OSError:
            _discard(sys.stderr)
    if sys.stdout is not None:  # None when the process started with its stdout closed
        sys.stdout.flush()


def _discard(stream) -> None:
    """Point ``stream``'s file descriptor at /dev/null, so that the interpreter's final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):  # a stream without a file descriptor
        pass
