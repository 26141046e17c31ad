r"""Stored counterexamples: where their files live, how an exact instance is written and read back.

A counterexample file under ``theorems/counterexamples/`` is JSON: ``{"claim": ID, "note": ..., "instance":
{...}}`` with every number an exact string (``"3/4"``). :func:`encode_instance` / :func:`decode_instance`
turn sympy matrices, rationals and lists / tuples / dicts of them into that form and back;
:func:`typeset` renders one in LaTeX and :func:`plain` on one line.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import sympy

from .aliases import Instance, JSONObject

__all__ = ["REPO_ROOT", "COUNTEREXAMPLE_DIR", "CounterexampleError", "counterexample_path", "relative_path",
           "save_counterexample", "load_counterexample", "counterexample_files", "encode_instance",
           "decode_instance", "typeset", "plain"]

REPO_ROOT = Path(__file__).resolve().parents[2]
COUNTEREXAMPLE_DIR = Path(__file__).resolve().parents[1] / "counterexamples"


class CounterexampleError(RuntimeError):
    """A stored counterexample no longer refutes its claim (or its file is missing or corrupt)."""



def counterexample_path(claim_id: str, name: str = "") -> Path:
    """Where the stored counterexample of ``claim_id`` lives (``name``: a second one for the same claim)."""
    return COUNTEREXAMPLE_DIR / f"{claim_id.replace('/', '_')}{('-' + name) if name else ''}.json"


def relative_path(path: Path) -> str:
    """``path`` relative to the repository (as written into the ledger), when it is inside it."""
    try:
        return path.resolve().relative_to(REPO_ROOT).as_posix()
    except ValueError:
        return str(path)


def save_counterexample(claim_id: str, instance: JSONObject, note: str, name: str = "",
                        directory: Path | None = None) -> Path:
    """Store an exact instance (rationals as strings) for ``claim_id``."""
    base = Path(directory) if directory is not None else COUNTEREXAMPLE_DIR
    base.mkdir(parents=True, exist_ok=True)
    path = base / counterexample_path(claim_id, name).name

    def enc(v: Any) -> Any:  # nested lists of str (a matrix's entries as exact strings), or one str
        if isinstance(v, (list, tuple)):
            return [enc(x) for x in v]
        if hasattr(v, "tolist") and not isinstance(v, (int, str)):
            return enc(v.tolist())
        return str(v)

    path.write_text(json.dumps({"claim": claim_id, "note": note,
                                "instance": {k: enc(v) for k, v in instance.items()}}, indent=1) + "\n")
    return path


def load_counterexample(claim_id: str, name: str = "") -> tuple[JSONObject, Path]:
    path = counterexample_path(claim_id, name)
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise CounterexampleError(f"stored counterexample {relative_path(path)} is missing") from None
    except json.JSONDecodeError as e:
        raise CounterexampleError(f"stored counterexample {relative_path(path)} is not valid JSON: {e.msg}") from None
    if not isinstance(data, dict) or data.get("claim") != claim_id or not isinstance(data.get("instance"), dict):
        raise CounterexampleError(f"{relative_path(path)} is not a counterexample record for {claim_id!r}")
    return data["instance"], path


def counterexample_files() -> list[str]:
    """Every stored counterexample file, repository-relative."""
    return sorted(relative_path(p) for p in COUNTEREXAMPLE_DIR.glob("*.json"))



# --- exact instances to and from JSON --------------------------------------------------------

def encode_instance(inst: Instance) -> JSONObject:
    """An exact instance (sympy Matrix, Rational, int, list/tuple/dict of them) as JSON-able data."""
    if isinstance(inst, sympy.MatrixBase):
        return {"matrix": [[str(v) for v in inst.row(i)] for i in range(inst.rows)], "shape": list(inst.shape)}
    if isinstance(inst, dict):
        return {"dict": {str(k): encode_instance(v) for k, v in inst.items()}}
    if isinstance(inst, (list, tuple)):
        return {"list" if isinstance(inst, list) else "tuple": [encode_instance(v) for v in inst]}
    if isinstance(inst, (int, sympy.Rational)) and not isinstance(inst, bool):
        return {"rational": str(inst)}
    raise TypeError(f"cannot store an instance of type {type(inst).__name__} exactly: use sympy Matrix, "
                    "Rational, int, or lists/tuples/dicts of them")


def decode_instance(data: JSONObject) -> Instance:
    if "matrix" in data:
        r, c = data["shape"]
        return sympy.Matrix(r, c, [sympy.Rational(v) for row in data["matrix"] for v in row])
    if "rational" in data:
        return sympy.Rational(data["rational"])
    if "dict" in data:
        return {k: decode_instance(v) for k, v in data["dict"].items()}
    if "list" in data:
        return [decode_instance(v) for v in data["list"]]
    if "tuple" in data:
        return tuple(decode_instance(v) for v in data["tuple"])
    raise ValueError(f"not an encoded instance: {sorted(data)}")


def typeset(inst: Instance) -> str:
    """LaTeX of an exact instance: a matrix in brackets, a list as a row vector, a dict as ``k = ...`` pairs."""
    if isinstance(inst, dict):
        return r",\quad ".join(rf"\mathrm{{{k}}}={typeset(v)}" for k, v in inst.items())
    if isinstance(inst, (list, tuple)):
        return str(sympy.latex(sympy.Matrix([list(inst)]), mat_delim="["))  # sympy.latex is not annotated
    return str(sympy.latex(inst, mat_delim="["))


def plain(inst: Instance) -> str:
    """A one-line exact rendering: ``X = [[1], [2]] (2x1)``, ``gamma = [1]``."""
    if isinstance(inst, sympy.MatrixBase):
        rows = "[" + ", ".join("[" + ", ".join(str(v) for v in inst.row(i)) + "]" for i in range(inst.rows)) + "]"
        return f"{rows} ({inst.rows}x{inst.cols})"
    if isinstance(inst, dict):
        return ", ".join(f"{k} = {plain(v)}" for k, v in inst.items())
    if isinstance(inst, (list, tuple)):
        return "[" + ", ".join(plain(v) for v in inst) + "]"
    return str(inst)

