"""The machine line `make test` and `make bench` print: the CPU's vector extensions as /proc/cpuinfo lists them
(AVX-512 or not moved the ratio targets, book/reference/performance.md), numpy's SIMD extensions, the load; it never
fails a run."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from property_tests import machine as M

AVX2_ONLY = """processor\t: 0
vendor_id\t: AuthenticAMD
cpu family\t: 23
model\t\t: 49
model name\t: AMD EPYC 7B12
flags\t\t: fpu sse sse2 avx avx2 fma

processor\t: 1
model name\t: another block, ignored
flags\t\t: avx512f
"""
AVX512 = AVX2_ONLY.replace("avx avx2 fma", "avx avx2 fma avx512f avx512bw", 1)
ARM = "processor\t: 0\nFeatures\t: fp asimd evtstrm\nCPU implementer\t: 0x41\n"


@pytest.mark.parametrize("text, avx512, avx2", [(AVX2_ONLY, "no", "yes"), (AVX512, "yes", "yes"),
                                                 (ARM, "unknown", "unknown"), ("", "unknown", "unknown")])
def test_machine_line_reads_the_first_processor_of_cpuinfo(text, avx512, avx2):
    info = M.cpuinfo(text)
    line = M.machine_line((1.25, 0.0, 0.0), info)
    assert f"AVX-512: {avx512}, AVX2: {avx2};" in line
    assert line.startswith("AMD EPYC 7B12 (family 23, model 49), ") if "model name" in text else \
        line.startswith("unknown CPU, ")
    assert "load average (1 min) at the start: 1.25" in line


@pytest.mark.skipif(not Path("/proc/cpuinfo").exists(), reason="no /proc/cpuinfo on this platform")
def test_machine_line_on_this_machine_matches_cpuinfo_numpy_and_openblas():
    flags = set()
    for row in Path("/proc/cpuinfo").read_text().splitlines():
        if row.startswith("flags"):
            flags = set(row.partition(":")[2].split())
            break
    line = M.machine_line()
    assert f"AVX-512: {'yes' if 'avx512f' in flags else 'no'}, AVX2: {'yes' if 'avx2' in flags else 'no'};" in line
    assert f" {len(os.sched_getaffinity(0))} CPUs, " in line and "load average (1 min) now: " in line
    found = np.show_config(mode="dicts")["SIMD Extensions"]["found"]
    assert f"numpy SIMD found: {' '.join(found) or 'none'};" in line
    if "openblas" in np.show_config(mode="dicts")["Build Dependencies"]["blas"]["name"]:
        np.ones((64, 64)) @ np.ones((64, 64))  # OpenBLAS is loaded
        assert "OpenBLAS core: unknown" not in line


def test_machine_section_never_fails_a_run_and_is_written_once(monkeypatch):
    class Reporter:
        def __init__(self):
            self.lines = []

        def section(self, title):
            self.lines.append(f"== {title}")

        def write_line(self, text):
            self.lines.append(text)

    class Config:
        pass

    def broken(*args, **kwargs):
        raise RuntimeError("no cpuinfo today")

    monkeypatch.setattr(M, "machine_line", broken)
    tr = Reporter()
    M.write_machine_section(tr, Config(), None)
    assert tr.lines == ["== machine", "could not describe the machine: RuntimeError: no cpuinfo today"]
    worker = Config()
    worker.workerinput = {}  # an xdist worker: its summary is dropped, so nothing is computed there
    tr = Reporter()
    M.write_machine_section(tr, worker, None)
    assert tr.lines == []


def test_load_average_is_none_where_the_platform_has_none(monkeypatch):
    monkeypatch.delattr(os, "getloadavg")
    assert M.load_average() is None
    assert "load average (1 min) now: unknown" in M.machine_line(None, {})
