r"""A hypothesis or conclusion as an object: one name, one definition, handlers per instance type.

After sympy's assumptions (``Q.positive.register(Add)``): a :class:`Predicate` is declared once, by the paper module
that states the claim, and each layer that can decide it on some kind of instance registers a handler for that
instance type on **the same object** — the exact layer for its exact instances (a Pool's rows), the numeric layer for
its interval instances (a user's softmax heads, a model's site). No English string joins two layers, and arrows still
point down: the numeric layer imports the paper's object and registers on it.

Calling a predicate dispatches on the instance's type (its method resolution order: a subclass without a handler of
its own uses its base's). A type with no handler answers *undecided*, with the reason
("no handler for <type> instances"), never false.

>>> from theorems.framework.predicate import Predicate
>>> POSITIVE = Predicate("x > 0", "the instance is a positive number")
>>> @POSITIVE.register(int)
... def _(x):
...     return x > 0
>>> POSITIVE(3), POSITIVE(-1)
(True, False)
>>> POSITIVE("three")
Decided(value=None, how='undecided: no handler for str instances (x > 0 is decided on int)')
"""
from __future__ import annotations

from typing import Any, Callable

from .instance import Decided

__all__ = ["Predicate", "is_predicate"]

#: what a handler returns: True / False / None, or a :class:`Decided` with the words saying how
Handler = Callable[[Any], Any]


class Predicate:
    """A named hypothesis or conclusion with handlers per instance type.

    ``name``: the words ``check`` and ``show`` print (the claim's hypothesis name); ``definition``: what it means,
    in one line; ``cost``: how expensive deciding it is on a large instance, relative to the others of its statement
    (``decide`` settles the cheap ones first, and skips a costly one once the premise already fails). A handler may
    declare its own cost (``register(T, cost=...)``): what is cheap on a Pool's small exact instance may be costly on
    a model's site (:meth:`cost_on` says which applies)."""

    #: a cost at or above this is skipped once a cheaper hypothesis of the same statement fails
    COSTLY = 10

    def __init__(self, name: str, definition: str = "", *, cost: int = 1) -> None:
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"a predicate has a name, not {name!r}")
        self.name = name
        self.definition = definition or name
        self.cost = cost
        self.handlers: dict[type, Handler] = {}
        self.costs: dict[type, int] = {}
        self.__doc__ = self.definition

    def register(self, *types: type, cost: int | None = None) -> Callable[[Handler], Handler]:
        """A decorator: ``@P.register(SomeInstance)`` makes the function P's handler for that type (and subclasses
        without their own). Registering a second handler for one type is an error: one type, one way to decide.
        ``cost``: this handler's cost, when it differs from the predicate's (e.g. exact products of a model's
        weights, where the Pool's handler is cheap)."""
        if not types or not all(isinstance(t, type) for t in types):
            raise TypeError(f"{self.name}: register(...) takes instance types, not {types!r}")

        def add(fn: Handler) -> Handler:
            for t in types:
                old = self.handlers.get(t)
                if old is not None and old is not fn:
                    raise ValueError(f"predicate {self.name!r}: a handler for {t.__name__} instances is already "
                                     f"registered ({getattr(old, '__qualname__', old)})")
                self.handlers[t] = fn
                if cost is not None:
                    self.costs[t] = cost
            return fn
        return add

    def handler_for(self, instance: object) -> Handler | None:
        """The handler of the instance's type (the first type of its method resolution order that has one)."""
        for t in type(instance).__mro__:
            if t in self.handlers:
                return self.handlers[t]
        return None

    def cost_on(self, instance: object) -> int:
        """The cost of deciding this predicate on ``instance``: its handler's declared cost, else the predicate's."""
        for t in type(instance).__mro__:
            if t in self.handlers:
                return self.costs.get(t, self.cost)
        return self.cost

    def types(self) -> list[str]:
        """The names of the instance types this predicate is decided on."""
        return sorted(t.__name__ for t in self.handlers)

    def __call__(self, instance: object) -> Any:
        h = self.handler_for(instance)
        if h is None:
            on = ", ".join(self.types()) or "no instance type yet"
            return Decided(None, f"undecided: no handler for {type(instance).__name__} instances "
                                 f"({self.name} is decided on {on})")
        return h(instance)

    def __repr__(self) -> str:
        return f"Predicate({self.name!r}, on {self.types()})"


def is_predicate(obj: object) -> bool:
    return isinstance(obj, Predicate)
