"""One line naming the machine a test or benchmark run measured: CPU, vector extensions, OpenBLAS's kernel, load.

Printed at the end of ``make test`` and ``make bench`` because the same code runs 2-3 times faster on a host with
AVX-512 than on one without (book/reference/performance.md): a figure without its machine cannot be compared.
"""
from __future__ import annotations

import ctypes
import os

import numpy as np


def _cpuinfo() -> dict[str, str]:
    try:
        with open("/proc/cpuinfo") as f:
            text = f.read().split("\n\n", 1)[0]
    except OSError:
        return {}
    out: dict[str, str] = {}
    for line in text.splitlines():
        key, _, value = line.partition(":")
        out.setdefault(key.strip(), value.strip())
    return out


def _openblas_core() -> str:
    """The kernel OpenBLAS chose at run time (e.g. Haswell, SkylakeX, Zen), or 'unknown'."""
    try:
        with open("/proc/self/maps") as f:
            libs = sorted({ln.split()[-1] for ln in f if "openblas" in ln.lower() and ln.split()[-1].startswith("/")})
        for path in libs:
            lib = ctypes.CDLL(path)
            for name in ("scipy_openblas_get_corename64_", "scipy_openblas_get_corename", "openblas_get_corename64_",
                         "openblas_get_corename"):
                fn = getattr(lib, name, None)
                if fn is not None:
                    fn.restype = ctypes.c_char_p
                    return (fn() or b"unknown").decode()
    except OSError:
        pass
    return "unknown"


def machine_line(load: tuple[float, float, float] | None = None) -> str:
    """CPU model (family, model), CPUs, AVX-512 / AVX2 flags, numpy's SIMD extensions found, OpenBLAS core and the
    1-minute load average given (taken when the run started) or now."""
    info = _cpuinfo()
    flags = set(info.get("flags", "").split())
    try:
        simd = " ".join(np.show_config(mode="dicts")["SIMD Extensions"]["found"])
    except Exception:  # noqa: BLE001 - numpy's config layout is not an API
        simd = "unknown"
    when = "at the start" if load else "now"
    try:
        load = load or os.getloadavg()
    except OSError:
        load = None
    cpu = info.get("model name", "unknown CPU")
    if "cpu family" in info:
        cpu += f" (family {info['cpu family']}, model {info.get('model', '?')})"
    avx512 = "yes" if "avx512f" in flags else ("no" if flags else "unknown")
    avx2 = "yes" if "avx2" in flags else ("no" if flags else "unknown")
    loads = f"{load[0]:.2f}" if load else "unknown"
    return (f"{cpu}, {os.cpu_count()} CPUs, AVX-512: {avx512}, AVX2: {avx2}; numpy SIMD found: {simd}; "
            f"OpenBLAS core: {_openblas_core()}; load average (1 min) {when}: {loads}")
