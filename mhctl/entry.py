"""The ``mhctl`` console script: hook events take a fast way in, everything else the click CLI.

A coding agent runs ``mhctl hook user-prompt ...`` before every prompt and waits for it, so
its start-up counts: click alone costs about 40 ms to import. Hook events whose arguments
this parser knows run straight through :mod:`mhctl.hooks.handlers` (the code the click
commands run too); anything else, ``--help`` included, goes to :func:`mhctl.main.main`.
"""

from __future__ import annotations

import sys

_OPTIONS = {
    "session-start": {"--tool", "--bank", "--budget", "--query", "--timeout"},
    "user-prompt": {"--tool", "--bank", "--budget", "--timeout"},
    "post-tool": {"--tool", "--bank"},
    "stop": {"--tool", "--bank"},
}
_FLAGS = {"stop": {"--no-flush"}}
_TOOLS = ("claude-code", "codex", "cursor")


def fast_arguments(argv: list[str]) -> tuple[str, dict] | None:
    """``(event, options)`` for ``hook <event> [options]`` this parser fully understands, else None."""
    if len(argv) < 2 or argv[0] != "hook" or argv[1] not in _OPTIONS:
        return None
    event, rest, options = argv[1], argv[2:], {}
    index = 0
    while index < len(rest):
        name, _, value = rest[index].partition("=")
        if name in _FLAGS.get(event, ()) and not value:
            options[name[2:].replace("-", "_")] = True
            index += 1
            continue
        if name not in _OPTIONS[event]:
            return None
        if not value:
            if index + 1 >= len(rest):
                return None
            value = rest[index + 1]
            index += 1
        options[name[2:]] = value
        index += 1
    try:
        if "budget" in options:
            options["budget"] = int(options["budget"])
        if "timeout" in options:
            options["timeout"] = float(options["timeout"])
    except ValueError:
        return None
    if options.get("tool", "claude-code") not in _TOOLS:
        return None
    return event, options


def main() -> None:
    parsed = fast_arguments(sys.argv[1:])
    if parsed is None:
        from mhctl.main import main as cli_main

        cli_main()
        return
    import os

    from mhctl.hooks.handlers import run_event

    event, options = parsed
    bank = options.pop("bank", None) or os.environ.get("MEMORYHUB_BANK", "")
    raw = sys.stdin.read() if not sys.stdin.isatty() else ""
    answer = run_event(event, raw, bank=bank, tool=options.pop("tool", None), **options)
    if answer:
        sys.stdout.write(answer + "\n")


if __name__ == "__main__":
    main()
