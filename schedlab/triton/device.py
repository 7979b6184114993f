"""The GPU a Triton kernel runs on, named as a profile: what :class:`~schedlab.triton.hook.Pruner` prices on by default."""

from __future__ import annotations

__all__ = ["H200_MIN_BYTES", "cuda_device", "gpu_of_device"]

#: Device memory above which a compute-capability-9.0 GPU is an H200 (141 GB) rather than an H100 (80 GB).
H200_MIN_BYTES = 100 * 2**30


def cuda_device() -> tuple[int, int, int] | None:
    """``(major, minor, memory_bytes)`` of the current CUDA device as torch sees it, or ``None`` without one."""
    try:
        import torch

        if not torch.cuda.is_available():
            return None
        props = torch.cuda.get_device_properties(torch.cuda.current_device())
        return props.major, props.minor, props.total_memory
    except Exception:  # no torch, no driver: no device to name
        return None


def gpu_of_device(device: tuple[int, int, int] | None) -> str | None:
    """The profile name of a device ``(major, minor, memory_bytes)``, or ``None`` if no profile describes it.

    Examples
    --------
    >>> gpu_of_device((9, 0, 80 * 2**30)), gpu_of_device((9, 0, 141 * 10**9)), gpu_of_device((8, 0, 80 * 2**30))
    ('h100-sxm', 'h200-sxm', 'a100-sxm4')
    >>> gpu_of_device((8, 9, 24 * 2**30)) is None
    True
    """
    if device is None:
        return None
    major, minor, memory = device
    if (major, minor) == (9, 0):
        return "h200-sxm" if memory > H200_MIN_BYTES else "h100-sxm"
    return "a100-sxm4" if (major, minor) == (8, 0) else None
