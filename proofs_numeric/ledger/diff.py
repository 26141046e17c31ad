"""What changed between two ledgers (``verify --diff OLD.json``): for the people who cite a verdict.

Two ledgers (``verify --json``) are compared claim by claim and reading by reading: a change of verdict or of
strength is listed old -> new with the new run's reason (its condition, its reason, or what its evidence says), and
so are claims and readings that appear or disappear. Evidence that changed without changing the verdict or the
strength is counted, not listed (``evidence_changed``): a diff is about what a reader may quote.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["load_ledger", "ledger_diff", "render_diff", "DiffError"]

#: verdicts that evidence holding decides (their reason is the first such evidence, not a failure beside it)
_POSITIVE = ("proved", "certified", "supported")
#: the fields of a claim or reading that a diff compares (the rest is provenance, timings or words)
_COMPARED = ("verdict", "strength")


class DiffError(ValueError):
    """An OLD ledger that cannot be read (the command line turns it into a usage error naming the file)."""


def load_ledger(path: str | Path) -> dict[str, Any]:
    """A ledger written by ``verify --json`` (refused, naming the file, when it is not one)."""
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DiffError(f"--diff {p}: no such file") from None
    except IsADirectoryError:
        raise DiffError(f"--diff {p}: is a directory, not a ledger file") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise DiffError(f"--diff {p}: not a JSON ledger ({type(e).__name__}: {str(e)[:120]})") from None
    kind = (data.get("collapse_verify") or {}).get("kind") if isinstance(data, dict) else None
    if kind != "ledger" or not isinstance(data.get("claims"), list):
        raise DiffError(f"--diff {p}: not a ledger written by `collapse-verify verify --json` "
                        f"(its kind is {kind!r})")
    return data


def _why(rec: dict[str, Any]) -> str:
    """The new run's reason for its verdict, in its own words."""
    for key in ("condition", "reason"):
        if rec.get(key):
            return str(rec[key])
    ev = rec.get("evidence") or []
    failing, holding = [e for e in ev if e.get("holds") is False], [e for e in ev if e.get("holds") is True]
    # the evidence that decided the verdict first: a witness or a proof for a positive verdict (a certified witness
    # of an existential outranks float evidence against it), a failure otherwise
    decisive = (holding or failing) if rec.get("verdict") in _POSITIVE else (failing or holding)
    return str(decisive[0].get("summary", ""))[:300] if decisive else ""


def _evidence_sig(rec: dict[str, Any]) -> list[tuple[Any, ...]]:
    return sorted((str(e.get("kind")), str(e.get("scope")), str(e.get("regime")), str(e.get("holds")))
                  for e in rec.get("evidence") or [])


def _entries(ledger: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    """(claim id, reading key or "") -> the claim's or reading's record."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for c in ledger.get("claims", []):
        out[(c["id"], "")] = c
        for r in c.get("readings") or []:
            out[(c["id"], r["key"])] = r
    return out


def ledger_diff(old: dict[str, Any], new: dict[str, Any], only: set[str] | None = None) -> dict[str, Any]:
    """``{"changed": [...], "added": [...], "removed": [...], "evidence_changed": n, "compared": n}``.

    Each changed row: ``claim``, ``reading`` (None for the headline), ``old`` and ``new`` (verdict and strength)
    and ``why`` (the new run's reason). ``only``: claim ids to compare (a ``--claims`` selection: claims outside it
    are neither compared nor reported as removed)."""
    a, b = _entries(old), _entries(new)
    if only is not None:
        a = {k: v for k, v in a.items() if k[0] in only}
        b = {k: v for k, v in b.items() if k[0] in only}
    changed, added, removed, ev_changed = [], [], [], 0
    for key in sorted(set(a) | set(b)):
        cid, rk = key
        row = {"claim": cid, "reading": rk or None}
        if key not in a:
            added.append({**row, "new": {f: b[key].get(f) for f in _COMPARED}})
            continue
        if key not in b:
            removed.append({**row, "old": {f: a[key].get(f) for f in _COMPARED}})
            continue
        o, n = ({f: rec.get(f) for f in _COMPARED} for rec in (a[key], b[key]))
        if o != n:
            changed.append({**row, "old": o, "new": n, "why": _why(b[key])})
        elif _evidence_sig(a[key]) != _evidence_sig(b[key]):
            ev_changed += 1
    return {"changed": changed, "added": added, "removed": removed, "evidence_changed": ev_changed,
            "compared": len(set(a) & set(b))}


def _vs(x: dict[str, Any]) -> str:
    return f"{x.get('verdict')} ({x.get('strength')})" if x.get("strength") else str(x.get("verdict"))


def render_diff(d: dict[str, Any], old_name: str) -> list[str]:
    """The diff as lines for a terminal."""
    n = len(d["changed"]) + len(d["added"]) + len(d["removed"])
    head = (f"diff against {old_name}: {len(d['changed'])} changed, {len(d['added'])} added, "
            f"{len(d['removed'])} removed of {d['compared']} claims and readings compared"
            + (f"; {d['evidence_changed']} with other evidence but the same verdict and strength"
               if d["evidence_changed"] else ""))
    out = [head]
    if not n:
        out.append("  no verdict or strength changed")
    for r in d["changed"]:
        where = r["claim"] + (f" reading {r['reading']}" if r["reading"] else "")
        out.append(f"  {where}: {_vs(r['old'])} -> {_vs(r['new'])}" + (f" — {r['why']}" if r.get("why") else ""))
    for r in d["added"]:
        where = r["claim"] + (f" reading {r['reading']}" if r["reading"] else "")
        out.append(f"  + {where}: {_vs(r['new'])} (new)")
    for r in d["removed"]:
        where = r["claim"] + (f" reading {r['reading']}" if r["reading"] else "")
        out.append(f"  - {where}: was {_vs(r['old'])} (gone)")
    return out
