"""A quicker ``__init__`` for the engine's frozen values made once per post (issue 21).

A frozen dataclass's generated ``__init__`` sets each field with ``object.__setattr__(self, name, value)``:
for a slotted class that is a generic attribute lookup and a check per field, about 0.15 µs each. The
values made once per post of a vote thread (100,000 posts in a long day: a ballot, a vote post, an entry
and a verdict each) then cost more to build than to judge. :func:`quick_init` gives such a class an
``__init__`` with the same parameters, the same defaults and the same ``__post_init__`` call, that sets
each slot through the slot's own descriptor. The instance is the same value and as frozen as before
(assigning to a field still raises ``FrozenInstanceError``); ``__init__.__wrapped__`` is the dataclass's
own (``inspect.signature`` shows its annotated signature; tests/engine/test_quickinit.py builds values
both ways and compares them).
"""

from __future__ import annotations

import dataclasses
import types
from typing import Any, TypeVar

__all__ = ["quick_init"]

T = TypeVar("T")


def quick_init(cls: type[T]) -> type[T]:
    """``cls`` (a frozen, slotted dataclass whose fields are all plain ``__init__`` parameters with a
    constant default or none) with the quicker ``__init__``. Raises TypeError for any other class: a
    default factory, a keyword-only field, an ``InitVar`` or a field left out of ``__init__`` would need
    more than this makes."""
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen or "__slots__" not in cls.__dict__:
        raise TypeError(f"{cls.__name__}: quick_init wants a frozen dataclass with slots")
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    if len(fields) != len(cls.__dataclass_fields__):  # type: ignore[attr-defined]
        raise TypeError(f"{cls.__name__}: quick_init does not handle InitVar or ClassVar pseudo-fields")
    namespace: dict[str, Any] = {}
    signature: list[str] = []
    body: list[str] = []
    for f in fields:
        if not f.init or f.kw_only or f.default_factory is not dataclasses.MISSING:
            raise TypeError(f"{cls.__name__}.{f.name}: quick_init handles plain fields only")
        slot = cls.__dict__.get(f.name)
        if not isinstance(slot, types.MemberDescriptorType):
            raise TypeError(f"{cls.__name__}.{f.name}: not a slot")
        namespace[f"_set_{f.name}"] = slot.__set__
        if f.default is dataclasses.MISSING:
            signature.append(f.name)
        else:
            namespace[f"_default_{f.name}"] = f.default
            signature.append(f"{f.name}=_default_{f.name}")
        body.append(f"    _set_{f.name}(self, {f.name})")
    if hasattr(cls, "__post_init__"):
        body.append("    self.__post_init__()")
    source = f"def __init__(self, {', '.join(signature)}):\n" + ("\n".join(body) or "    pass") + "\n"
    exec(source, namespace)  # the source is made above from the class's own field names
    init = namespace["__init__"]
    original = cls.__init__
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    init.__doc__ = original.__doc__
    init.__wrapped__ = original
    cls.__init__ = init  # type: ignore[method-assign]
    return cls
