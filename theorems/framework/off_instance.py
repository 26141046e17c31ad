"""Why a statement is not decided on one instance: the ``off_instance`` note of a claim or reading.

Every reading is either decided on instances (a Pool, a builder, or an instance form a layer of the suite gives:
``collapse-verify check`` runs it on a user's input, ``check --model`` at a model's sites) or says why not, with one
reason from the fixed list :data:`OFF_INSTANCE_REASONS`, declared where the claim is declared
(``claim(off_instance=OffInstance(...))`` for the headline and, unless they give their own, its readings;
``Reading(..., off_instance=OffInstance(...))``). ``check --list`` and ``check CLAIM`` print the reason; a registry
test fails on a reading with neither.

>>> OffInstance("count", "BERT-base's 12 x 12 heads").words
"a count or an arithmetic fact about named sizes, not a predicate on an instance: BERT-base's 12 x 12 heads"
>>> OffInstance("about-instances")
Traceback (most recent call last):
    ...
ValueError: off_instance reason 'about-instances' is not one of: limit, count, positive-measure, depth-study, \
undefined, empirical, literature, inference
"""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["OFF_INSTANCE_REASONS", "OFF_INSTANCE_MEANING", "OffInstance", "check_off_instance"]

#: the reasons a statement is not decided on one instance, and what each means (``check`` prints the meaning)
OFF_INSTANCE_MEANING: dict[str, str] = {
    "limit": "a statement about a limit (depth, width, a temperature or a scale going to a limit), which no finite "
             "instance decides",
    "count": "a count or an arithmetic fact about named sizes, not a predicate on an instance",
    "positive-measure": "a statement about a set of positive measure or about almost every point: one instance is a "
                        "point of that set, never evidence for or against it",
    "depth-study": "a statement about how a quantity evolves over depth or training, decided by a study over many "
                   "layers, not by one instance",
    "undefined": "an object the paper does not define (its text stops mid-section 6): no predicate to decide",
    "empirical": "a historical or empirical statement about models, data or training runs we do not have",
    "literature": "a statement about the literature or about who proved what, not about a mathematical object",
    "inference": "a step of an argument (\"A, hence B\"): decided by testing the step against the suite's evidence, "
                 "not on one instance",
}
OFF_INSTANCE_REASONS: tuple[str, ...] = tuple(OFF_INSTANCE_MEANING)


@dataclass(frozen=True)
class OffInstance:
    """One reason from :data:`OFF_INSTANCE_REASONS` and a detail in words."""

    reason: str
    detail: str = ""

    def __post_init__(self) -> None:
        if self.reason not in OFF_INSTANCE_MEANING:
            raise ValueError(f"off_instance reason {self.reason!r} is not one of: {', '.join(OFF_INSTANCE_REASONS)}")
        if not isinstance(self.detail, str):
            raise TypeError(f"off_instance {self.reason}: detail is words (a str), not {type(self.detail).__name__}")

    @property
    def words(self) -> str:
        meaning = OFF_INSTANCE_MEANING[self.reason]
        return f"{meaning}: {self.detail}" if self.detail.strip() else meaning

    def to_json(self) -> dict[str, str]:
        return {"reason": self.reason, "detail": self.detail, "words": self.words}


def check_off_instance(value: object, owner: str) -> OffInstance | None:
    """The value of an ``off_instance=`` argument, or a TypeError naming the owner."""
    if value is None or isinstance(value, OffInstance):
        return value
    raise TypeError(f"{owner}: off_instance= is an OffInstance(reason, detail), not {type(value).__name__}")
