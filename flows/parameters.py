"""One list of the build options for every flow that takes them.

``refresh-kg`` takes ``build-kg``'s options (less the two it decides itself) plus its own; both
are what ``kgbuild build`` takes. Written out in each flow they were two lists of twenty
parameters that could drift apart. Prefect reads a flow's parameters from its signature
(``inspect.signature``: the deployment's parameter schema, the binding of a run's parameters),
so the refresh flow is given ``build-kg``'s signature, edited, as its ``__signature__``, and its
body takes ``**params`` bound to it (unknown names refused, defaults applied). The parameters
are keyword-only: a flow run passes them by name.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])
KEYWORD = inspect.Parameter.KEYWORD_ONLY


def with_parameters_of(
    source: Callable[..., Any],
    *,
    drop: tuple[str, ...] = (),
    first: tuple[inspect.Parameter, ...] = (),
    last: tuple[inspect.Parameter, ...] = (),
) -> Callable[[F], F]:
    """Decorate a ``def f(**params)`` so that it has ``source``'s parameters (annotations
    evaluated) without ``drop``; ``first`` replace theirs of the same name and come first,
    ``last`` are added after."""
    base = inspect.signature(source, eval_str=True)
    unknown = set(drop) - set(base.parameters)
    if unknown:
        raise ValueError(f"{source.__name__} has no parameter {sorted(unknown)}")
    skip = set(drop) | {p.name for p in first}
    kept = [
        *first,
        *(p.replace(kind=KEYWORD) for p in base.parameters.values()
          if p.name not in skip),
    ]  # fmt: skip

    def decorate(fn: F) -> F:
        signature = base.replace(
            parameters=[*kept, *last], return_annotation=inspect.signature(fn).return_annotation
        )

        @functools.wraps(fn)
        def bound(**params: Any) -> Any:
            # every parameter reaches the body, defaults applied, however the flow is called
            # (a Prefect run binds them already; ``refresh_flow.fn(...)`` does not)
            call = signature.bind(**params)
            call.apply_defaults()
            return fn(**call.arguments)

        bound.__signature__ = signature  # type: ignore[attr-defined]
        return bound  # type: ignore[return-value]

    return decorate
