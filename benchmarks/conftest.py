"""Print every benchmark figure next to its baseline from the same run, as a ratio.

A figure names its baseline with ``benchmark.extra_info["baseline"] = "<test name>"`` (or a list of
names, the first being the one a target refers to) and may state a target ratio (figure / baseline)
with ``benchmark.extra_info["target_ratio"]``; the table says whether the target was met in *this*
run. Ratios, not absolute times: the machine is noisy.
"""
from __future__ import annotations

from property_tests.machine import load_average, write_machine_section

#: the load average when the run started, for the machine line
_LOAD_AT_START = load_average()


def pytest_terminal_summary(terminalreporter, config):
    bs = getattr(config, "_benchmarksession", None)
    if bs is None or not bs.benchmarks:
        return
    median = {m.name: m.stats.median for m in bs.benchmarks if m}
    # a baseline may say what the ratio against it means (extra_info "as_baseline"), and a figure what the ratio to its
    # first baseline means (extra_info "meaning"), printed where no target is
    meaning = {m.name: m.extra_info.get("as_baseline") for m in bs.benchmarks if m}
    rows = []
    for m in bs.benchmarks:
        bases = m.extra_info.get("baseline")
        if not m or not bases:
            continue
        for k, base in enumerate([bases] if isinstance(bases, str) else bases):
            if base not in median:
                rows.append((m.name, median[m.name], base, None, None, "baseline not run"))
                continue
            ratio = median[m.name] / median[base]
            target = m.extra_info.get("target_ratio") if k == 0 else None  # the target is against the first
            says = (m.extra_info.get("meaning") if k == 0 else None) or meaning.get(base)  # the figure's own first
            verdict = (f"({says})" if says else "") if target is None else (
                f"target <= {target}: " + ("met" if ratio <= target else "MISSED"))
            rows.append((m.name, median[m.name], base, median[base], ratio, verdict))
    tr = terminalreporter
    write_machine_section(tr, config, _LOAD_AT_START)
    extras = [(m.name, k, v) for m in bs.benchmarks if m for k, v in m.extra_info.items()
              if isinstance(v, (int, float)) and k != "target_ratio"]
    if extras:
        tr.section("figures recorded by the benchmarks")
        for name, k, v in extras:
            tr.write_line(f"{name}: {k} = {v:.4g}")
    if not rows:
        return
    tr.section("figures against their baselines (same run; ratio = figure / baseline median)")
    w = max(len(r[0]) for r in rows)
    wb = max(len(r[2]) for r in rows)
    for name, t, base, tb, ratio, verdict in rows:
        tb_s = "-" if tb is None else f"{tb:10.4f} s"
        ratio_s = "-" if ratio is None else f"{ratio:8.3f}"
        tr.write_line(f"{name:<{w}}  {t:10.4f} s   vs  {base:<{wb}}  {tb_s}   ratio {ratio_s}   {verdict}")
