"""The one record stream (``proofs_numeric.output.RecordStream``) as ``check --model --jsonl / --resume`` uses it:
every line a record, a user's file never changed, a stream continued only when it is ours, a broken line named by its
number, an empty file accepted, the model's folder never written, one writer at a time."""
from __future__ import annotations

import json

import numpy as np
import pytest

from proofs_numeric import output as O
from proofs_numeric.cli import main
from proofs_numeric.ledger import model_check as MC
from proofs_numeric.model import sites as S
from property_tests.interface.test_checkpoints import bert_config, bert_tensors, write_checkpoint

RUN = ("check", "RN.main", "--length", "4", "--workers", "1", "--network-layers", "0")


@pytest.fixture(scope="module")
def bert(tmp_path_factory):
    return write_checkpoint(tmp_path_factory.mktemp("stream") / "bert", bert_config(),
                            bert_tensors(np.random.default_rng(1)))


def _run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def _stream(bert, capsys, path) -> list[dict]:
    code, _, err = _run(capsys, *RUN, "--model", str(bert), "--jsonl", str(path))
    assert code == 0, err
    return MC.read_records(path)


def test_record_stream_every_line_is_a_record_with_the_marker_first(bert, tmp_path, capsys):
    """A JSON Lines reader (pandas, duckdb, jq) gets only records: every line is one, the marker its first key."""
    p = tmp_path / "rn.jsonl"
    recs = _stream(bert, capsys, p)
    lines = p.read_text().splitlines()
    # 5 norm sites x 4 readings (literal, what-LN-preserves, corrected, trained-model)
    assert len(lines) == len(recs) == 5 * 4
    for line, rec in zip(lines, recs):
        obj = json.loads(line)
        assert list(obj)[0] == O.OUTPUT_MARKER and obj[O.OUTPUT_MARKER] == {"kind": MC.RECORD_KIND, "version": 1}
        assert {k: v for k, v in obj.items() if k != O.OUTPUT_MARKER} == rec and "claim" in rec and "site" in rec
    assert O.written_kind(p) == MC.RECORD_KIND


def test_record_stream_resume_refuses_a_users_text_file_and_leaves_it_byte_identical(bert, tmp_path, capsys):
    """The reported loss: `--resume notes.txt` on a text file whose last line has no newline deleted that line and
    appended records (exit 0). Now --resume and --jsonl refuse it in one line naming the file and why, and it is
    left as it was, byte for byte."""
    notes = tmp_path / "notes.txt"
    data = b"my notes\nline two, no newline at the end"
    notes.write_bytes(data)
    code, out, err = _run(capsys, *RUN, "--model", str(bert), "--resume", str(notes))
    assert code == 2 and notes.read_bytes() == data
    assert err.count("\n") == 1 and str(notes) in err and "not a record stream" in err and "Traceback" not in err
    code, out, err = _run(capsys, *RUN, "--model", str(bert), "--jsonl", str(notes))
    assert code == 2 and notes.read_bytes() == data
    assert "not a file collapse-verify wrote" in err and "--resume" not in err  # no advice to continue it
    ledger = tmp_path / "ledger.json"
    O.write_json_output(ledger, {"claims": []}, kind="ledger")
    before = ledger.read_bytes()
    code, out, err = _run(capsys, *RUN, "--model", str(bert), "--resume", str(ledger))
    assert code == 2 and "is a ledger" in err and ledger.read_bytes() == before  # ours, but another kind


def test_record_stream_is_never_written_inside_a_model_folder(bert, tmp_path, capsys):
    link = tmp_path / "link"
    link.symlink_to(bert, target_is_directory=True)
    for flag in ("--jsonl", "--resume"):
        for inside in (bert / "r.jsonl", bert / "." / "r.jsonl", link / "r.jsonl"):
            code, _, err = _run(capsys, *RUN, "--model", str(bert), flag, str(inside))
            assert code == 2 and "lies inside the input folder" in err, err
    assert sorted(p.name for p in bert.iterdir()) == ["config.json", "model.safetensors"]


def test_record_stream_a_garbled_middle_line_is_named_by_its_number(bert, tmp_path, capsys):
    """A line in the middle that does not parse is never skipped in silence: --resume refuses the stream naming the
    line (and changes nothing), and reading the records says the same."""
    p = tmp_path / "rn.jsonl"
    _stream(bert, capsys, p)
    lines = p.read_text().splitlines(keepends=True)
    lines[2] = lines[2][: len(lines[2]) // 2] + "\n"  # line 3 cut in half
    p.write_text("".join(lines))
    before = p.read_bytes()
    code, _, err = _run(capsys, *RUN, "--model", str(bert), "--resume", str(p))
    assert code == 2 and "line 3 is not JSON" in err and p.read_bytes() == before
    with pytest.raises(O.UsageError, match="line 3 is not JSON"):
        MC.read_records(p)
    lines[2] = "[1, 2]\n"
    p.write_text("".join(lines))
    with pytest.raises(O.UsageError, match="line 3 is not a JSON object"):
        MC.read_records(p)


def test_record_stream_a_torn_last_line_is_dropped_and_said(bert, tmp_path, capsys):
    p = tmp_path / "rn.jsonl"
    want = MC.canonical_records(_stream(bert, capsys, p))
    lines = p.read_text().splitlines(keepends=True)
    p.write_text("".join(lines[:7]) + lines[7][:40])  # an interrupted write of the 8th record
    assert len(MC.read_records(p)) == 7
    code, _, err = _run(capsys, *RUN, "--model", str(bert), "--resume", str(p))
    assert code == 0 and "line 8 is an incomplete last record" in err and "dropped" in err
    assert MC.canonical_records(MC.read_records(p)) == want and len(p.read_text().splitlines()) == len(want)
    p.write_text("".join(lines[:7]) + lines[7].rstrip("\n"))  # a whole record without its newline: kept
    code, _, err = _run(capsys, *RUN, "--model", str(bert), "--resume", str(p))
    assert code == 0 and "dropped" not in err
    assert MC.canonical_records(MC.read_records(p)) == want and len(p.read_text().splitlines()) == len(want)


def test_record_stream_an_empty_target_file_is_accepted(bert, tmp_path, capsys):
    """`out=$(mktemp)`: an existing empty file is not a user's work; --jsonl and --json write there."""
    p = tmp_path / "tmp.XXXX"
    p.write_bytes(b"")
    assert len(_stream(bert, capsys, p)) == 20
    j = tmp_path / "tmp.YYYY"
    j.write_bytes(b"")
    assert O.check_output(j, kind="ledger") == j.resolve()  # `verify --json "$(mktemp)"`
    O.write_json_output(j, {"claims": []}, kind="ledger")
    assert O.written_kind(j) == "ledger"


def test_record_stream_a_stream_of_the_earlier_form_is_continued(bert, tmp_path, capsys):
    """Streams written before the marker moved into the records begin with a marker line alone: still read and
    continued (that line is not a record)."""
    p = tmp_path / "old.jsonl"
    recs = _stream(bert, capsys, p)
    old = [json.dumps({O.OUTPUT_MARKER: {"kind": MC.RECORD_KIND, "version": 1}})]
    old += [json.dumps(r) for r in recs[:6]]
    p.write_text("\n".join(old) + "\n")
    assert MC.read_records(p) == recs[:6]
    code, _, err = _run(capsys, *RUN, "--model", str(bert), "--resume", str(p))
    assert code == 0, err
    got = MC.read_records(p)
    assert MC.canonical_records(got) == MC.canonical_records(recs) and len({S.record_key(r) for r in got}) == 20


def test_record_stream_one_writer_at_a_time(tmp_path):
    """A second stream on the same file while the first is open is refused (a lock outside the user's folder)."""
    p = tmp_path / "runs.jsonl"
    with O.RecordStream(p, kind="x") as s:
        s.write({"a": 1})
        with pytest.raises(O.UsageError, match="being written by another collapse-verify run"):
            O.RecordStream(p, kind="x", resume=True)
    with O.RecordStream(p, kind="x", resume=True) as s:  # released on close
        assert s.records == [{"a": 1}]
    assert sorted(q.name for q in tmp_path.iterdir()) == ["runs.jsonl"]  # no lock file beside it
