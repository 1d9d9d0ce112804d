"""Guards that a code path does not call a function, wherever the function was imported by name."""

from __future__ import annotations

import sys

#: First-party packages: where a ``from x import f`` binds a name a guard has to replace too.
PACKAGES = ("memoryhub", "banks", "audit", "reviews", "beliefs", "workloads", "portability", "mhctl")


def forbid(monkeypatch, function, message: str) -> int:
    """Make every call of ``function`` fail with ``message``; returns how many module names were replaced.

    Patching only the defining module misses callers that did ``from module import function``: they hold
    their own reference. This replaces the function under every name bound to it in a loaded first-party
    module, so the guard fires whichever import the caller used.
    """

    def forbidden(*args, **kwargs):
        raise AssertionError(f"{message} ({function.__module__}.{function.__qualname__} was called)")

    replaced = 0
    for name, module in list(sys.modules.items()):
        if module is None or not name.startswith(PACKAGES):
            continue
        for attribute, value in list(vars(module).items()):
            if value is function:
                monkeypatch.setattr(module, attribute, forbidden)
                replaced += 1
    return replaced
