"""One line naming the machine a test or benchmark run measured: CPU, vector extensions, OpenBLAS's kernel, load.

Printed in the summary of ``make test`` and ``make bench`` because the suite ran 1.3-3 times faster on the AVX-512 host
measured than on the AVX2 one (book/reference/performance.md): a figure without its machine cannot be compared.
"""
from __future__ import annotations

import os

import numpy as np
from threadpoolctl import ThreadpoolController


def load_average() -> tuple[float, float, float] | None:
    """os.getloadavg(), or None where the platform has none or cannot read it."""
    get = getattr(os, "getloadavg", None)
    try:
        return get() if get is not None else None
    except OSError:
        return None


def cpuinfo(text: str | None = None) -> dict[str, str]:
    """The first processor's block of /proc/cpuinfo (or of ``text``) as key -> value; {} where there is none."""
    if text is None:
        try:
            with open("/proc/cpuinfo") as f:
                text = f.read()
        except OSError:
            return {}
    out: dict[str, str] = {}
    for line in text.split("\n\n", 1)[0].splitlines():
        key, _, value = line.partition(":")
        out.setdefault(key.strip(), value.strip())
    return out


def vector_flags(info: dict[str, str]) -> tuple[str, str]:
    """("yes"/"no"/"unknown" for AVX-512, the same for AVX2) from a cpuinfo block (x86 ``flags``)."""
    if "flags" not in info:
        return "unknown", "unknown"
    flags = set(info["flags"].split())
    return ("yes" if "avx512f" in flags else "no"), ("yes" if "avx2" in flags else "no")


def _openblas_core() -> str:
    """The kernel OpenBLAS chose at run time (e.g. Haswell, SkylakeX, Zen), or 'unknown' (threadpoolctl reads it as
    the library's ``architecture``)."""
    for info in ThreadpoolController().select(internal_api="openblas").info():
        if info.get("architecture"):
            return str(info["architecture"])
    return "unknown"


def machine_line(load: tuple[float, float, float] | None = None, info: dict[str, str] | None = None) -> str:
    """CPU model (family, model), CPUs, AVX-512 / AVX2 flags, numpy's SIMD extensions found, OpenBLAS core and the
    1-minute load average given (taken when the run started) or now. Never raises: what cannot be read is 'unknown'."""
    info = cpuinfo() if info is None else info
    try:
        simd = " ".join(np.show_config(mode="dicts")["SIMD Extensions"]["found"]) or "none"
    except Exception:  # noqa: BLE001 - numpy's config layout is not an API
        simd = "unknown"
    when = "at the start" if load else "now"
    load = load or load_average()
    cpu = info.get("model name", "unknown CPU")
    if "cpu family" in info:
        cpu += f" (family {info['cpu family']}, model {info.get('model', '?')})"
    avx512, avx2 = vector_flags(info)
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 0
    loads = f"{load[0]:.2f}" if load else "unknown"
    return (f"{cpu}, {cpus} CPUs, AVX-512: {avx512}, AVX2: {avx2}; numpy SIMD found: {simd}; "
            f"OpenBLAS core: {_openblas_core()}; load average (1 min) {when}: {loads}")


def write_machine_section(terminalreporter, config, load) -> None:
    """The ``machine`` section of a run's summary, in the controller only (an xdist worker's output is dropped);
    a failure to describe the machine is reported in the line, never as an error of the run."""
    if hasattr(config, "workerinput"):
        return
    try:
        line = machine_line(load)
    except Exception as exc:  # noqa: BLE001 - the summary must not fail a run
        line = f"could not describe the machine: {type(exc).__name__}: {exc}"
    terminalreporter.section("machine")
    terminalreporter.write_line(line)
