"""The machine line `make test` and `make bench` print: it reports the CPU's vector extensions as /proc/cpuinfo
lists them (AVX-512 or not decided the ratio targets, book/reference/performance.md)."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from property_tests.machine import machine_line


@pytest.mark.skipif(not Path("/proc/cpuinfo").exists(), reason="no /proc/cpuinfo on this platform")
def test_machine_line_names_the_vector_extensions_cpuinfo_lists():
    flags = set()
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("flags"):
            flags = set(line.partition(":")[2].split())
            break
    line = machine_line((1.25, 0.0, 0.0))
    assert f"AVX-512: {'yes' if 'avx512f' in flags else 'no'}," in line
    assert f"AVX2: {'yes' if 'avx2' in flags else 'no'};" in line
    assert f"{os.cpu_count()} CPUs" in line and "at the start: 1.25" in line
    blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]["name"]
    if "openblas" in blas:
        np.ones((64, 64)) @ np.ones((64, 64))  # OpenBLAS is loaded
        assert "OpenBLAS core: unknown" not in machine_line()
